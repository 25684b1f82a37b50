#pragma once
// Hands batches from the thread that reads them to the one that answers them, in order, so
// reading and tokenizing the next batch overlaps computing this one. The reader waits when
// it is `capacity` batches ahead. The answering side never waits on input, so joining it
// cannot hang: close() lets it drain what was handed over and stop.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <mutex>
#include <utility>

namespace han::cli {

template <class Batch>
class BatchHandoff {
 public:
  explicit BatchHandoff(std::size_t capacity) : capacity_(capacity) {}

  // Reader: false when the answering side has failed (its error is failure()).
  bool push(Batch batch) {
    std::unique_lock<std::mutex> lock(mutex_);
    room_.wait(lock, [&] { return queue_.size() < capacity_ || failure_; });
    if (failure_) return false;
    queue_.push_back(std::move(batch));
    ready_.notify_one();
    return true;
  }

  // Reader: no more batches.
  void close() {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    ready_.notify_one();
  }

  // Answering side: the next batch, or false once closed and drained.
  bool pop(Batch& batch) {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [&] { return !queue_.empty() || closed_; });
    if (queue_.empty()) return false;
    batch = std::move(queue_.front());
    queue_.pop_front();
    room_.notify_one();
    return true;
  }

  // Answering side: it stopped on this error; the reader's next push returns false.
  void fail(std::exception_ptr error) {
    std::lock_guard<std::mutex> lock(mutex_);
    failure_ = std::move(error);
    queue_.clear();
    room_.notify_one();
  }

  std::exception_ptr failure() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return failure_;
  }

 private:
  const std::size_t capacity_;
  mutable std::mutex mutex_;
  std::condition_variable ready_, room_;
  std::deque<Batch> queue_;
  bool closed_ = false;
  std::exception_ptr failure_;
};

}  // namespace han::cli
