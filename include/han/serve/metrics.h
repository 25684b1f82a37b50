#pragma once
// What GET /metrics answers, in the Prometheus text format (version 0.0.4): requests and
// errors by path and status, request latency and batch sizes as histograms, documents
// answered (and per second since the start), forward passes, model loads and reloads.
// Every method may be called from any thread.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace han::serve {

// Cumulative buckets as Prometheus reads them: counts of observations <= each bound.
class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds);
  void observe(double value);
  // "name_bucket{le=...} n" lines, then name_sum and name_count.
  std::string text(const std::string& name) const;

 private:
  std::vector<double> bounds_;
  std::vector<std::uint64_t> counts_;  // per bucket, not cumulative; the last is +Inf
  double sum_ = 0;
  std::uint64_t count_ = 0;
};

class Metrics {
 public:
  Metrics();
  void request(const std::string& path, int status, double seconds);
  void batch(std::size_t documents, double seconds);
  void model_loaded(double seconds);
  void reload(bool ok);
  std::string text() const;

 private:
  mutable std::mutex mutex_;
  std::chrono::steady_clock::time_point start_;
  std::map<std::pair<std::string, int>, std::uint64_t> requests_;  // (path, status)
  Histogram latency_, batch_sizes_;
  std::uint64_t documents_ = 0, batches_ = 0, reloads_ = 0, failed_reloads_ = 0;
  double forward_seconds_ = 0, load_seconds_ = 0;
};

}  // namespace han::serve
