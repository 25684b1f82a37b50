#pragma once
// Answers batches in the order they are submitted, on a thread of its own, so the caller
// reads and tokenizes the next batches meanwhile (han predict); or, when not threaded (one
// thread asked for, or no thread could be started), at once on the caller's thread.
// The caller waits when it is `ahead` batches in front. The answering side never waits on
// input, so joining it cannot hang. A batch is never answered twice: after an answer
// throws, nothing more is answered and every later call rethrows that error.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>

namespace han {

template <class Batch>
class AnsweringThread {
 public:
  AnsweringThread(std::function<void(Batch&)> answer, bool threaded, std::size_t ahead)
      : answer_(std::move(answer)), ahead_(ahead) {
    if (!threaded) return;
    try {
      thread_ = std::thread([this] { run(); });
    } catch (const std::system_error&) {
      // no thread to be had (a limit on threads): answer on the caller's thread
    }
  }

  // Unanswered batches are dropped (an error is on its way out), then the thread joined.
  ~AnsweringThread() { close_and_join(true); }

  AnsweringThread(const AnsweringThread&) = delete;
  AnsweringThread& operator=(const AnsweringThread&) = delete;

  void submit(Batch batch) {
    if (!thread_.joinable()) return answer_here(batch);
    std::unique_lock<std::mutex> lock(mutex_);
    room_.wait(lock, [&] { return queue_.size() < ahead_ || failure_; });
    if (failure_) std::rethrow_exception(failure_);
    queue_.push_back(std::move(batch));
    ready_.notify_one();
  }

  // Waits until every submitted batch is answered; rethrows the answering side's error.
  void finish() {
    close_and_join(false);
    if (failure_) std::rethrow_exception(failure_);
  }

 private:
  // No more batches: the thread answers what is queued (or drops it) and ends.
  void close_and_join(bool drop_queued) {
    if (!thread_.joinable()) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (drop_queued) queue_.clear();
      closed_ = true;
    }
    ready_.notify_one();
    thread_.join();
  }

  void answer_here(Batch& batch) {
    if (failure_) std::rethrow_exception(failure_);
    try {
      answer_(batch);
    } catch (...) {
      failure_ = std::current_exception();
      throw;
    }
  }

  void run() {
    Batch batch;
    while (next(batch)) {
      try {
        answer_(batch);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex_);
        failure_ = std::current_exception();
        queue_.clear();
        room_.notify_one();
        return;
      }
    }
  }

  // The next batch to answer, or false once closed and drained.
  bool next(Batch& batch) {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [&] { return !queue_.empty() || closed_; });
    if (queue_.empty()) return false;
    batch = std::move(queue_.front());
    queue_.pop_front();
    room_.notify_one();
    return true;
  }

  const std::function<void(Batch&)> answer_;
  const std::size_t ahead_;
  std::mutex mutex_;
  std::condition_variable ready_, room_;
  std::deque<Batch> queue_;
  bool closed_ = false;
  std::exception_ptr failure_;  // set under mutex_ by the thread; read after join or under it
  std::thread thread_;          // last: started after everything it uses
};

}  // namespace han
