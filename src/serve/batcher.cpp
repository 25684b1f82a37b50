#include "han/serve/batcher.h"

#include <algorithm>

#include "han/core/error.h"

namespace han::serve {

struct Batcher::Waiting {
  Job* job = nullptr;
  std::size_t next = 0;  // the first of its documents not yet in a batch
  std::size_t answered = 0;
  std::exception_ptr error;
  std::condition_variable done;
};

Batcher::Batcher(BatcherOptions options, std::function<void(std::size_t, double)> on_batch)
    : options_(options), on_batch_(std::move(on_batch)), thread_([this] { run(); }) {
  options_.max_batch = std::max<std::size_t>(options_.max_batch, 1);
}

Batcher::~Batcher() { stop(); }

void Batcher::arriving() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++arriving_;
  recent_peak_.note(arriving_ + queue_.size() + in_pass_);
}

void Batcher::not_coming() {
  std::lock_guard<std::mutex> lock(mutex_);
  --arriving_;
  work_.notify_one();
}

void Batcher::answer(Job& job) {
  Waiting w;
  w.job = &job;
  std::unique_lock<std::mutex> lock(mutex_);
  --arriving_;
  if (stopping_) throw Error("the server is stopping", 1);
  queue_.push_back(&w);
  queued_docs_ += job.docs.size();
  work_.notify_one();
  w.done.wait(lock, [&] { return w.answered == job.docs.size() || w.error; });
  if (w.error) std::rethrow_exception(w.error);
}

void Batcher::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
  }
  work_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void Batcher::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    work_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and everything answered
    std::vector<Waiting*> batch = next_batch(lock);
    lock.unlock();
    forward(batch);
    lock.lock();
  }
}

// Waits (lock held) until the batch is worth running, then takes up to max_batch
// documents, all of the first job's model, from the front of the queue.
std::vector<Batcher::Waiting*> Batcher::next_batch(std::unique_lock<std::mutex>& lock) {
  const auto deadline = std::chrono::steady_clock::now() + options_.max_wait;
  work_.wait_until(lock, deadline, [&] {
    return stopping_ || queued_docs_ >= options_.max_batch ||
           (arriving_ == 0 && queue_.size() >= recent_peak_.requests);
  });
  std::vector<Waiting*> batch;
  std::size_t docs = 0;
  const ServedModel* model = queue_.front()->job->model.get();
  for (Waiting* w : queue_) {
    if (docs == options_.max_batch || w->job->model.get() != model) break;
    batch.push_back(w);
    docs += std::min(w->job->docs.size() - w->next, options_.max_batch - docs);
  }
  in_pass_ = batch.size();
  return batch;
}

void Batcher::Peak::note(std::size_t in_server) {
  const auto now = std::chrono::steady_clock::now();
  if (now - since > kPeakMemory) {  // clients come and go: forget an old peak
    requests = 1;
    since = now;
  }
  requests = std::max(requests, in_server);
}

// Takes the batch's documents off the queue: (first, count) of each job's; a large job
// spans batches.
std::vector<std::pair<std::size_t, std::size_t>> Batcher::take(const std::vector<Waiting*>& batch) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::pair<std::size_t, std::size_t>> parts;
  std::size_t room = options_.max_batch;
  for (Waiting* w : batch) {
    const std::size_t n = std::min(w->job->docs.size() - w->next, room);
    parts.emplace_back(w->next, n);
    w->next += n;
    room -= n;
    queued_docs_ -= n;
    if (w->next == w->job->docs.size()) queue_.erase(std::find(queue_.begin(), queue_.end(), w));
  }
  return parts;
}

void Batcher::forward(const std::vector<Waiting*>& batch) {
  const std::vector<std::pair<std::size_t, std::size_t>> parts = take(batch);
  const ServedModel& model = *batch.front()->job->model;
  Documents docs(model.classifier.vocab.size());
  bool explain = false;
  for (std::size_t b = 0; b < batch.size(); ++b) {
    for (std::size_t i = 0; i < parts[b].second; ++i) docs.push_back(batch[b]->job->docs[parts[b].first + i]);
    explain = explain || batch[b]->job->explain;
  }
  Answers answers;
  const auto start = std::chrono::steady_clock::now();
  try {
    answers.probs = model.predictor.predict(docs, static_cast<Index>(docs.size()), explain ? &answers.explanations : nullptr);
  } catch (...) {
    answers.error = std::current_exception();
  }
  on_batch_(docs.size(), std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  deliver(batch, parts, answers);
}

// Hands each job its columns (or the error) and wakes the jobs that are complete.
void Batcher::deliver(const std::vector<Waiting*>& batch, const std::vector<std::pair<std::size_t, std::size_t>>& parts,
                      Answers& answers) {
  std::lock_guard<std::mutex> lock(mutex_);
  in_pass_ = 0;  // before any answer goes out: a client's next request must not count it
  Index column = 0;
  for (std::size_t b = 0; b < batch.size(); ++b) {
    Waiting& w = *batch[b];
    Job& job = *w.job;
    const auto [first, count] = parts[b];
    if (answers.error) {
      w.error = answers.error;
      if (w.next < job.docs.size()) {  // the rest of its documents are not run
        queue_.erase(std::find(queue_.begin(), queue_.end(), &w));
        queued_docs_ -= job.docs.size() - w.next;
      }
    } else {
      if (job.probs.size() == 0) job.probs.resize(answers.probs.rows(), static_cast<Index>(job.docs.size()));
      if (job.explain) job.explanations.resize(job.docs.size());
      for (std::size_t i = 0; i < count; ++i, ++column) {
        job.probs.col(static_cast<Index>(first + i)) = answers.probs.col(column);
        if (job.explain) job.explanations[first + i] = std::move(answers.explanations[static_cast<std::size_t>(column)]);
      }
      w.answered += count;
    }
    w.done.notify_one();
  }
}

}  // namespace han::serve
