#include "serve_state.h"

#include <spdlog/spdlog.h>

#include "han/core/error.h"
#include "model_info.h"

namespace han::cli {

std::shared_ptr<serve::ServedModel> load_served_model(const std::string& path) {
  std::shared_ptr<serve::ServedModel> m = serve::ServedModel::load(path, 0);
  m->info = model_info_json(m->path, m->classifier, m->header);
  return m;
}

ServeState::ServeState(std::string model_path, std::shared_ptr<const serve::ServedModel> model,
                       serve::BatcherOptions batching, ServeLimits l)
    : limits(l),
      batcher(batching, [this](std::size_t docs, double seconds) { metrics.batch(docs, seconds); }),
      model_path_(std::move(model_path)),
      model_(std::move(model)) {
  metrics.model_loaded(model_->load_seconds);
}

std::shared_ptr<const serve::ServedModel> ServeState::model() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return model_;
}

std::string ServeState::reload() {
  std::lock_guard<std::mutex> one_at_a_time(reloading_);
  std::shared_ptr<const serve::ServedModel> fresh;
  try {
    fresh = load_served_model(model_path_);
  } catch (const std::exception& e) {  // han::Error, or bad_alloc on a hostile size
    metrics.reload(false);
    spdlog::warn("reload refused, the model loaded before serves on: {}", e.what());
    return e.what();
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    model_ = fresh;
  }
  metrics.reload(true);
  metrics.model_loaded(fresh->load_seconds);
  spdlog::info("reloaded {} in {:.3f} s", fresh->path, fresh->load_seconds);
  return "";
}

}  // namespace han::cli
