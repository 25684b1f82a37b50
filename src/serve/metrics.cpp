#include "han/serve/metrics.h"

#include <algorithm>

#include <fmt/format.h>

namespace han::serve {
namespace {

std::string number(double v) { return fmt::format("{}", v); }  // shortest round-trip form

std::string help(const std::string& name, const std::string& type, const std::string& what) {
  return "# HELP " + name + " " + what + "\n# TYPE " + name + " " + type + "\n";
}

std::string sample(const std::string& name, double value) { return name + " " + number(value) + "\n"; }

}  // namespace

Histogram::Histogram(std::vector<double> bounds) : bounds_(std::move(bounds)), counts_(bounds_.size() + 1, 0) {}

void Histogram::observe(double value) {
  const auto at = std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin();
  ++counts_[static_cast<std::size_t>(at)];
  sum_ += value;
  ++count_;
}

std::string Histogram::text(const std::string& name) const {
  std::string out;
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i < bounds_.size(); ++i) {
    cumulative += counts_[i];
    out += name + "_bucket{le=\"" + number(bounds_[i]) + "\"} " + std::to_string(cumulative) + "\n";
  }
  out += name + "_bucket{le=\"+Inf\"} " + std::to_string(count_) + "\n";
  return out + sample(name + "_sum", sum_) + name + "_count " + std::to_string(count_) + "\n";
}

Metrics::Metrics()
    : start_(std::chrono::steady_clock::now()),
      latency_({0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}),
      batch_sizes_({1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}) {}

void Metrics::request(const std::string& path, int status, double seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++requests_[{path, status}];
  latency_.observe(seconds);
}

void Metrics::batch(std::size_t documents, double seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  batch_sizes_.observe(static_cast<double>(documents));
  documents_ += documents;
  ++batches_;
  forward_seconds_ += seconds;
}

void Metrics::model_loaded(double seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  load_seconds_ = seconds;
}

void Metrics::reload(bool ok) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++(ok ? reloads_ : failed_reloads_);
}

std::string Metrics::text() const {
  std::lock_guard<std::mutex> lock(mutex_);
  const double uptime = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::string out = help("han_requests_total", "counter", "HTTP requests answered, by path and status.");
  std::uint64_t errors = 0;
  for (const auto& [key, n] : requests_) {
    out += "han_requests_total{path=\"" + key.first + "\",code=\"" + std::to_string(key.second) + "\"} " +
           std::to_string(n) + "\n";
    if (key.second >= 400) errors += n;
  }
  out += help("han_request_errors_total", "counter", "HTTP requests answered with a status of 400 or more.");
  out += "han_request_errors_total " + std::to_string(errors) + "\n";
  out += help("han_request_duration_seconds", "histogram", "Time from a request read to its answer.");
  out += latency_.text("han_request_duration_seconds");
  out += help("han_batch_size", "histogram", "Documents per forward pass.") + batch_sizes_.text("han_batch_size");
  out += help("han_documents_total", "counter", "Documents answered.");
  out += "han_documents_total " + std::to_string(documents_) + "\n";
  out += help("han_documents_per_second", "gauge", "Documents answered per second since the start.");
  out += sample("han_documents_per_second", uptime > 0 ? static_cast<double>(documents_) / uptime : 0);
  out += help("han_forward_seconds_total", "counter", "Time spent in forward passes.");
  out += sample("han_forward_seconds_total", forward_seconds_);
  out += help("han_model_load_seconds", "gauge", "Time the model now served took to load.");
  out += sample("han_model_load_seconds", load_seconds_);
  out += help("han_model_reloads_total", "counter", "Model reloads, by result.");
  out += "han_model_reloads_total{result=\"ok\"} " + std::to_string(reloads_) + "\n";
  out += "han_model_reloads_total{result=\"refused\"} " + std::to_string(failed_reloads_) + "\n";
  out += help("han_uptime_seconds", "gauge", "Seconds since the server started.");
  return out + sample("han_uptime_seconds", uptime);
}

}  // namespace han::serve
