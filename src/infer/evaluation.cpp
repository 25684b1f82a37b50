#include "han/infer/evaluation.h"

#include "han/core/random.h"

namespace han {

Metrics evaluate(const Predictor& predictor, const std::vector<Document>& docs,
                 const std::vector<BatchIndices>& batches, PaddingAttention* padding) {
  const Matrix probs = predictor.predict(docs, batches, nullptr, padding);
  std::vector<std::int32_t> gold;
  gold.reserve(docs.size());
  for (const Document& d : docs) gold.push_back(d.label);
  return compute_metrics(gold, argmax_columns(probs), static_cast<std::size_t>(predictor.classes()));
}

Metrics evaluate(const Predictor& predictor, const std::vector<Document>& docs, Index batch_size) {
  return evaluate(predictor, docs, inference_batches(docs, batch_size));
}

std::vector<BatchIndices> scoring_batches(const std::vector<Document>& docs, const Config& cfg) {
  return evaluation_batches(docs, cfg.batching.strategy, cfg.batching.batch_size,
                            derive_seed(cfg.trainer.seed, SeedStream::dev_batches));
}

}  // namespace han
