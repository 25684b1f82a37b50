#include "han/serve/batcher.h"

#include <pthread.h>

#include <algorithm>

#include "han/core/error.h"
#include "han/text/reading.h"

namespace han::serve {

struct Batcher::Waiting {
  Job* job = nullptr;
  std::size_t next = 0;  // the first of its documents not yet in a pass
  std::size_t answered = 0;
  std::exception_ptr error;
  std::mutex mutex;
  std::condition_variable wake;
  bool done = false;  // answered, or failed (under `mutex`)
};

struct Batcher::Pass {
  const ServedModel* model = nullptr;  // kept alive by its jobs
  std::vector<Waiting*> jobs;
  std::vector<std::pair<std::size_t, std::size_t>> parts;  // (first, count) of each job's documents
};

struct Batcher::Answers {
  Matrix probs;
  std::vector<Explanation> explanations;
  std::exception_ptr error;
};

namespace {

BatcherOptions checked(BatcherOptions o) {
  o.max_batch = std::max<std::size_t>(o.max_batch, 1);
  return o;
}

}  // namespace

Batcher::Batcher(BatcherOptions options, std::function<void(std::size_t, double)> on_batch)
    : options_(checked(options)), on_batch_(std::move(on_batch)), thread_([this] { run(); }) {}

Batcher::~Batcher() { stop(); }

void Batcher::arriving() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++arriving_;
  recent_peak_.note(arriving_ + queue_.size() + in_pass_);
}

void Batcher::not_coming() {
  std::lock_guard<std::mutex> lock(mutex_);
  --arriving_;
  if (gathering_ && batch_ready()) ready_.notify_one();  // the pass waited for it
}

void Batcher::answer(Job& job) {
  Waiting w;
  w.job = &job;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    --arriving_;
    if (stopping_) throw Error("the server is stopping", 1);
    queue_.push_back(&w);
    queued_docs_ += job.docs.size();
    // Wakes the batching thread only when it has something to do.
    if (!gathering_) idle_.notify_one();
    else if (batch_ready()) ready_.notify_one();
  }
  std::unique_lock<std::mutex> lock(w.mutex);
  w.wake.wait(lock, [&] { return w.done; });
  if (w.error) std::rethrow_exception(w.error);
}

void Batcher::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  idle_.notify_one();
  ready_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void Batcher::run() {
  pthread_setname_np(pthread_self(), "han-batch");  // for top -H and perf
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    idle_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and everything answered
    const Pass pass = gather(lock);
    lock.unlock();
    forward(pass);
    lock.lock();
  }
}

// Waits (lock held) until the batch is worth running, or for max_wait, then takes it.
// The wait starts when the thread is free, not when the oldest request came: the
// requests that came during a pass are few when most clients still wait for its answers.
Batcher::Pass Batcher::gather(std::unique_lock<std::mutex>& lock) {
  gathering_ = true;
  const auto deadline = std::chrono::steady_clock::now() + options_.max_wait;
  ready_.wait_until(lock, deadline, [&] { return batch_ready(); });
  gathering_ = false;
  return take();
}

// Half the clients, not all: while one half's pass runs, the other half's requests are
// read and tokenized, and their pass can start the moment this one ends. Waiting for all
// of them left the cores idle between passes, while every client read its answer and sent
// its next request.
bool Batcher::batch_ready() const {
  return stopping_ || queued_docs_ >= options_.max_batch ||
         (arriving_ == 0 && queue_.size() >= (recent_peak_.requests() + 1) / 2);
}

void Batcher::Peak::note(std::size_t in_server) {
  const auto now = std::chrono::steady_clock::now();
  if (now - since > kWindow) {  // clients come and go: an old peak fades after two windows
    previous = now - since > 2 * kWindow ? 1 : current;
    current = 1;
    since = now;
  }
  current = std::max(current, in_server);
}

// Takes (lock held) up to max_batch documents of the oldest job's model, oldest first;
// a large job spans passes.
Batcher::Pass Batcher::take() {
  Pass pass;
  if (queue_.empty()) return pass;
  pass.model = queue_.front()->job->model.get();
  std::size_t room = options_.max_batch;
  for (auto it = queue_.begin(); it != queue_.end() && room > 0;) {
    Waiting* w = *it;
    if (w->job->model.get() != pass.model) {
      ++it;
      continue;
    }
    const std::size_t n = std::min(w->job->docs.size() - w->next, room);
    pass.jobs.push_back(w);
    pass.parts.emplace_back(w->next, n);
    w->next += n;
    room -= n;
    queued_docs_ -= n;
    it = w->next == w->job->docs.size() ? queue_.erase(it) : std::next(it);
  }
  in_pass_ = pass.jobs.size();
  return pass;
}

void Batcher::forward(const Pass& pass) {
  Documents docs(pass.model->classifier.vocab.size());
  docs.set_caps(pass.model->classifier.caps());
  if (keeps_unknown_words(pass.model->classifier.config.model)) docs.keep_unknown_words();
  bool explain = false;
  for (std::size_t b = 0; b < pass.jobs.size(); ++b) {
    const auto [first, count] = pass.parts[b];
    for (std::size_t i = 0; i < count; ++i) docs.push_back(pass.jobs[b]->job->docs[first + i]);
    explain = explain || pass.jobs[b]->job->explain;
  }
  Answers answers;
  const auto start = std::chrono::steady_clock::now();
  try {
    answers.probs =
        pass.model->predictor.predict(docs, static_cast<Index>(docs.size()), explain ? &answers.explanations : nullptr);
  } catch (...) {
    answers.error = std::current_exception();
  }
  on_batch_(docs.size(), std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  deliver(pass, answers);
}

// Hands each job its columns (or the error), then wakes the jobs that are complete.
void Batcher::deliver(const Pass& pass, Answers& answers) {
  std::vector<Waiting*> complete;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    in_pass_ = 0;  // before any answer goes out: a client's next request must not count it
    hand_out(pass, answers, complete);
  }
  for (Waiting* w : complete) {
    std::lock_guard<std::mutex> lock(w->mutex);  // held while notifying: `w` lives until it is released
    w->done = true;
    w->wake.notify_one();
  }
}

// Under the lock. A job is complete once its documents are all answered, or when a pass
// of its fails (its documents not yet in a pass are dropped).
void Batcher::hand_out(const Pass& pass, Answers& answers, std::vector<Waiting*>& complete) {
  Index column = 0;
  for (std::size_t b = 0; b < pass.jobs.size(); ++b) {
    Waiting& w = *pass.jobs[b];
    Job& job = *w.job;
    const auto [first, count] = pass.parts[b];
    if (answers.error) {
      w.error = answers.error;
      if (w.next < job.docs.size()) {
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
    if (w.error || w.answered == job.docs.size()) complete.push_back(&w);
  }
}

}  // namespace han::serve
