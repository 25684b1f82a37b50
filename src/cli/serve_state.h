#pragma once
// What han serve's request threads share: the model being served (swapped whole by a
// reload), the batcher that answers its documents, the metrics and the limits.
#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>

#include "han/serve/batcher.h"
#include "han/serve/metrics.h"
#include "han/serve/served_model.h"

namespace han::cli {

struct ServeLimits {
  std::size_t max_texts = 256;  // per request
  bool allow_reload = false;    // POST /v1/reload
};

// Loads a model to serve, with what GET /v1/model says of it (as han info --json).
std::shared_ptr<serve::ServedModel> load_served_model(const std::string& path);

class ServeState {
 public:
  ServeState(std::string model_path, std::shared_ptr<const serve::ServedModel> model, serve::BatcherOptions batching,
             ServeLimits limits);
  std::shared_ptr<const serve::ServedModel> model() const;
  // Loads the model file again and serves it from the next batch on; requests already
  // read finish with the model they started with. A file that cannot be loaded (missing,
  // half written, not a model) is refused: the old model serves on. Returns the error, or
  // "" when the new model serves. One reload at a time.
  std::string reload();

  const ServeLimits limits;
  serve::Metrics metrics;
  std::atomic<bool> stopping{false};
  serve::Batcher batcher;  // last: its thread reports to metrics

 private:
  const std::string model_path_;  // as given (a run folder stays one)
  mutable std::mutex mutex_;
  std::mutex reloading_;
  std::shared_ptr<const serve::ServedModel> model_;
};

}  // namespace han::cli
