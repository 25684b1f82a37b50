#include "han/core/parallel.h"

#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace han {

void run_parallel(int n, const std::function<void(int)>& fn) {
  if (n <= 1) {
    if (n == 1) fn(0);
    return;
  }
  std::exception_ptr error;
  std::mutex error_mutex;
  auto guarded = [&](int i) {
    try {
      fn(i);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(n - 1);
  for (int i = 1; i < n; ++i) threads.emplace_back(guarded, i);
  guarded(0);
  for (auto& t : threads) t.join();
  if (error) std::rethrow_exception(error);
}

int resolve_threads(int requested) {
  if (requested > 0) return requested;
  const unsigned cores = std::thread::hardware_concurrency();
  return cores == 0 ? 1 : static_cast<int>(cores);
}

}  // namespace han
