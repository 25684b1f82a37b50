#pragma once
// Dynamic batching: request threads hand in their documents and wait; one thread, the
// only caller of the models' predictors, gathers the documents waiting into forward
// passes of up to max_batch documents. A pass starts when max_batch documents wait; or
// when none is being read and half as many requests wait (rounded up) as the most that
// were in the server at once lately (about as many as there are clients); or after
// max_wait. So a lone client pays no wait, and 64 clients take turns in two halves:
// one half's pass runs while the other half's requests are read.
//
// The batching thread is woken only when a pass can start, and a pass's requests each
// wake on their own lock, not on the batcher's that the next requests take.
//
// Padding is masked, so a document gets the same answer in any batch, to float rounding
// (the matrix products of passes of other sizes may sum in another order, as han
// predict's batches do). A pass holds the documents of one model: after a reload, the
// requests read with the model before finish with it, in passes of their own.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "han/serve/served_model.h"

namespace han::serve {

struct BatcherOptions {
  std::size_t max_batch = 64;
  std::chrono::microseconds max_wait{5000};
};

// The documents of one request and, once answered, their answers.
struct Job {
  std::shared_ptr<const ServedModel> model;  // the one that encoded the documents
  std::vector<Document> docs;
  bool explain = false;
  Matrix probs;                           // (classes, docs)
  std::vector<Explanation> explanations;  // explain only
};

class Batcher {
 public:
  // `on_batch(size, seconds)`: called after every forward pass (for the metrics).
  Batcher(BatcherOptions options, std::function<void(std::size_t, double)> on_batch);
  ~Batcher();  // stop()
  Batcher(const Batcher&) = delete;
  Batcher& operator=(const Batcher&) = delete;

  // A request is being read: it counts among the requests in the server (see the top)
  // until answer() or not_coming() (a request refused after all).
  void arriving();
  void not_coming();
  // Answers the job's documents (after arriving()); blocks until they are. Rethrows what
  // a forward pass threw.
  void answer(Job& job);
  // Answers what is waiting, then ends the thread. Later answer() calls throw.
  void stop();

 private:
  struct Waiting;  // a job in the queue
  struct Pass;     // the documents of one forward pass
  struct Answers;  // of one forward pass
  void run();
  Pass gather(std::unique_lock<std::mutex>& lock);
  Pass take();
  void forward(const Pass& pass);
  void deliver(const Pass& pass, Answers& answers);
  void hand_out(const Pass& pass, Answers& answers, std::vector<Waiting*>& complete);
  bool batch_ready() const;

  BatcherOptions options_;
  std::function<void(std::size_t, double)> on_batch_;
  std::mutex mutex_;
  std::condition_variable idle_;   // the batching thread between passes: documents came, or stop
  std::condition_variable ready_;  // the batching thread filling a pass: it may start
  std::deque<Waiting*> queue_;
  std::size_t queued_docs_ = 0;
  std::size_t arriving_ = 0;  // requests read but not queued yet
  std::size_t in_pass_ = 0;   // requests in the forward pass running
  bool gathering_ = false;    // the batching thread waits for its pass to fill
  // The most requests in the server at once lately (read, queued or in the pass): about
  // how many clients ask at once. The most of this window and the one before, so that
  // it does not drop at each new window.
  struct Peak {
    static constexpr std::chrono::seconds kWindow{1};
    std::size_t previous = 1, current = 1;
    std::chrono::steady_clock::time_point since{};
    void note(std::size_t in_server);
    std::size_t requests() const { return std::max(previous, current); }
  } recent_peak_;
  bool stopping_ = false;
  std::thread thread_;  // last: it uses the members above
};

}  // namespace han::serve
