#pragma once
// Runs fn(0) ... fn(n-1) at once and waits: the calling thread takes fn(0), threads of a
// process-wide pool the others. The pool's threads are started on first use and kept
// for later calls (a small prediction batch pays a wake-up, not a thread start), and
// joined at exit. After every task has finished, the exception of the lowest-numbered
// task that threw, if any, is rethrown in the caller.
// A call made from inside a task, or while another thread's call holds the pool, runs its
// tasks one after another on the calling thread: tasks must not depend on which thread
// runs them or on running at the same time as each other (results are then the same
// for any thread count and any nesting).
#include <functional>

namespace han {

void run_parallel(int n, const std::function<void(int)>& fn);

// As run_parallel, but the pool's threads take every task while the calling thread calls
// poll() about every 100 us until they are done or poll() returns false (nothing left to
// do), then sleeps until they are done: e.g. to keep MPI's nonblocking calls moving (only
// the main thread may call MPI). Nested or with the pool busy, the tasks run in turn and
// poll() is called once after them.
void run_parallel_polling(int n, const std::function<void(int)>& fn, const std::function<bool()>& poll);

// trainer.threads / --threads: 0 means every core.
int resolve_threads(int requested);

}  // namespace han
