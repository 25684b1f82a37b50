#pragma once
// Runs fn(0) ... fn(n-1) on n threads (the calling thread takes fn(0)) and waits.
// The first exception thrown by any task is rethrown in the caller.
#include <functional>

namespace han {

void run_parallel(int n, const std::function<void(int)>& fn);

// trainer.threads / --threads: 0 means every core.
int resolve_threads(int requested);

}  // namespace han
