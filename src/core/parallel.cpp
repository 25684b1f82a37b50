#include "han/core/parallel.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace han {
namespace {

// True on the pool's workers, and on a caller while its tasks run: a run_parallel call
// from inside a task runs its own tasks in turn on that thread instead of waiting for
// workers that are busy with the outer call.
thread_local bool t_in_task = false;

using IndexedTask = std::function<void(int)>;

// How long a thread that ran out of work keeps looking for more before it sleeps: the
// next call usually comes within microseconds (the next batch, the optimizer's pieces),
// and catching it awake saves two sleeps and wake-ups in the kernel per call.
constexpr std::chrono::microseconds kSpinTime{50};

// How often a caller that leaves its tasks to the workers (run_parallel_polling) calls its
// poll function while it waits (and the poll function asks to be called again).
constexpr std::chrono::microseconds kPollInterval{100};

// Polls `done` (yielding the core meanwhile) for up to kSpinTime; its last answer.
template <class Done>
bool spin_until(Done done) {
  const auto until = std::chrono::steady_clock::now() + kSpinTime;
  while (!done()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::yield();
  }
  return true;
}

// Runs fn(k), keeping what it throws for the caller.
void run_task(const IndexedTask& fn, int k, std::exception_ptr& error) {
  try {
    fn(k);
  } catch (...) {
    error = std::current_exception();
  }
}

// Every task on the calling thread, one after another.
void run_in_turn(int n, const IndexedTask& fn, std::vector<std::exception_ptr>& errors) {
  for (int k = 0; k < n; ++k) run_task(fn, k, errors[k]);
}

// Worker threads started on first use, kept for later calls and joined at exit. One call
// at a time: worker i runs task i + 1 of it while the caller runs task 0.
class Pool {
 public:
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    for (auto& w : workers_) w->wake.notify_one();
    for (auto& w : workers_) w->thread.join();
  }

  // False (nothing run) when another thread's call holds the pool. With `poll`, the
  // workers take every task and the caller calls poll() until they are done.
  bool try_run(int n, const IndexedTask& fn, std::vector<std::exception_ptr>& errors,
               const std::function<bool()>* poll = nullptr) {
    std::unique_lock<std::mutex> call(call_mutex_, std::try_to_lock);
    if (!call.owns_lock()) return false;
    const int first = poll ? 0 : 1;  // the first task a worker takes
    int helpers;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      start_workers(n - first);
      helpers = std::min(n - first, static_cast<int>(workers_.size()));
      task_ = &fn;
      errors_ = errors.data();
      first_task_ = first;
      helpers_ = helpers;
      pending_ = helpers;
      ++job_;
    }
    // Woken outside the lock, so that a worker does not wake only to wait for it. Only
    // this call's thread changes workers_, so reading it here is safe.
    for (int i = 0; i < helpers; ++i) workers_[i]->wake.notify_one();
    t_in_task = true;
    if (!poll) run_task(fn, 0, errors[0]);
    for (int k = helpers + first; k < n; ++k) run_task(fn, k, errors[k]);  // tasks no thread could be started for
    t_in_task = false;
    bool polling = poll != nullptr;
    std::exception_ptr poll_error;  // rethrown once the workers are done with this frame's tasks
    while (polling && pending_.load() != 0) {
      try {
        polling = (*poll)();
      } catch (...) {
        poll_error = std::current_exception();
        polling = false;
      }
      std::unique_lock<std::mutex> lock(mutex_);
      done_.wait_for(lock, kPollInterval, [&] { return pending_.load() == 0; });
    }
    if (poll) {
      std::unique_lock<std::mutex> lock(mutex_);
      done_.wait(lock, [&] { return pending_.load() == 0; });
      if (poll_error) std::rethrow_exception(poll_error);
    } else if (!spin_until([&] { return pending_.load() == 0; })) {
      std::unique_lock<std::mutex> lock(mutex_);
      done_.wait(lock, [&] { return pending_.load() == 0; });
    }
    return true;
  }

 private:
  struct Worker {
    std::condition_variable wake;
    std::thread thread;
  };

  // Starts workers until there are `count` (mutex_ held). If the system refuses a thread,
  // the pool stays smaller and the caller runs the tasks left over.
  void start_workers(int count) {
    workers_.reserve(static_cast<std::size_t>(std::max(count, 0)));
    while (static_cast<int>(workers_.size()) < count) {
      auto w = std::make_unique<Worker>();
      const int index = static_cast<int>(workers_.size());
      try {
        w->thread = std::thread([this, self = w.get(), index, seen = job_.load()] { work(*self, index, seen); });
      } catch (const std::system_error&) {
        return;
      }
      workers_.push_back(std::move(w));
    }
  }

  void work(Worker& self, int index, std::uint64_t seen) {
    t_in_task = true;
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      lock.unlock();
      spin_until([&] { return job_.load() != seen || stopping_.load(); });
      lock.lock();
      self.wake.wait(lock, [&] { return stopping_ || (job_ != seen && index < helpers_); });
      if (stopping_) return;
      seen = job_;
      const IndexedTask& fn = *task_;
      const int task = index + first_task_;
      std::exception_ptr& error = errors_[task];
      lock.unlock();
      run_task(fn, task, error);
      lock.lock();
      if (--pending_ == 0) done_.notify_one();
    }
  }

  std::mutex call_mutex_;  // held by the thread whose call is running
  std::mutex mutex_;       // guards everything below
  std::condition_variable done_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::atomic<std::uint64_t> job_{0};  // counts calls: a worker runs each call's task once
  const IndexedTask* task_ = nullptr;
  std::exception_ptr* errors_ = nullptr;
  int first_task_ = 1;  // worker i runs task i + first_task_ of the current call
  int helpers_ = 0;  // workers taking part in the current call
  std::atomic<int> pending_{0};  // of those, how many are still running their task
  std::atomic<bool> stopping_{false};
};

Pool& pool() {
  static Pool p;
  return p;
}

// Both entry points: tasks 0 .. n-1 on the pool (with `poll`, the caller polls instead of
// taking task 0), then the lowest-numbered task's exception rethrown.
void run_tasks(int n, const IndexedTask& fn, const std::function<bool()>* poll) {
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(n));
  // Nested in a task, or the pool busy with another thread's call: the tasks run in turn
  // here, which gives the same results (no task may depend on which thread runs it).
  if (t_in_task || !pool().try_run(n, fn, errors, poll)) {
    run_in_turn(n, fn, errors);
    if (poll) (*poll)();
  }
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace

void run_parallel(int n, const std::function<void(int)>& fn) {
  if (n <= 1) {
    if (n == 1) fn(0);
    return;
  }
  run_tasks(n, fn, nullptr);
}

void run_parallel_polling(int n, const std::function<void(int)>& fn, const std::function<bool()>& poll) {
  if (n > 0) run_tasks(n, fn, &poll);
}

int resolve_threads(int requested) {
  if (requested > 0) return requested;
  const unsigned cores = std::thread::hardware_concurrency();
  return cores == 0 ? 1 : static_cast<int>(cores);
}

}  // namespace han
