#include "han/serve/served_model.h"

#include <chrono>

namespace han::serve {

// The predictor keeps references into `classifier`: it is built on the member, in place.
ServedModel::ServedModel(std::string p, Classifier c, nlohmann::json h, int threads)
    : path(std::move(p)),
      classifier(std::move(c)),
      header(std::move(h)),
      tokenizer(classifier.tokenizer()),
      predictor(classifier.members(), classifier.config.model, threads, classifier.head,
                classifier.weighted_linear_member()) {}

std::shared_ptr<ServedModel> ServedModel::load(const std::string& path, int threads) {
  const auto start = std::chrono::steady_clock::now();
  const std::string file = model_file_in(path);
  nlohmann::json header;
  // Copied, not mapped: a server outlives many edits of its model file, and one rewritten
  // in place under a mapping would change or vanish beneath it.
  Classifier c = load_classifier(file, nullptr, &header);
  std::shared_ptr<ServedModel> m(new ServedModel(file, std::move(c), std::move(header), threads));
  m->load_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return m;
}

}  // namespace han::serve
