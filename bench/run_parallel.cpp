// Measures what run_parallel costs by itself: many calls of a task that does nothing,
// so the figure is the price of handing work to the threads and waiting for them (for
// small streaming prediction batches it is paid once per batch). Prints one JSON object:
// microseconds per call, the median of 5 timings of `calls` calls, for each thread count.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "han/core/parallel.h"

namespace {

using Clock = std::chrono::steady_clock;

double microseconds_per_call(int threads, int calls) {
  std::atomic<long> sink{0};
  std::vector<double> timings;
  for (int rep = 0; rep < 5; ++rep) {
    const auto start = Clock::now();
    for (int c = 0; c < calls; ++c) han::run_parallel(threads, [&](int k) { sink.fetch_add(k, std::memory_order_relaxed); });
    timings.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count() / calls);
  }
  std::sort(timings.begin(), timings.end());
  return timings[timings.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int calls = argc > 1 ? std::atoi(argv[1]) : 10000;
  std::printf("{\"calls\": %d", calls);
  for (int threads : {1, 2, 4}) std::printf(", \"us_per_call_%d_threads\": %.3f", threads, microseconds_per_call(threads, calls));
  std::printf("}\n");
  return 0;
}
