#include "han/infer/evaluation.h"

#include "han/core/random.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace han {
namespace {

// Mean of -ln p(gold) over documents with a known label (p floored at 1e-12); NaN for none.
double mean_log_loss(const Matrix& probs, const std::vector<std::int32_t>& gold) {
  double sum = 0;
  std::size_t n = 0;
  for (std::size_t i = 0; i < gold.size(); ++i) {
    if (gold[i] < 0) continue;
    sum -= std::log(std::max(1e-12, static_cast<double>(probs(gold[i], static_cast<Index>(i)))));
    ++n;
  }
  return n ? sum / static_cast<double>(n) : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

Metrics evaluate(const Predictor& predictor, const std::vector<Document>& docs,
                 const std::vector<BatchIndices>& batches, PaddingAttention* padding) {
  return score_predictions(predictor.predict(docs, batches, nullptr, padding), docs);
}

Metrics score_predictions(const Matrix& probabilities, const std::vector<Document>& docs) {
  std::vector<std::int32_t> gold;
  gold.reserve(docs.size());
  for (const Document& d : docs) gold.push_back(d.label);
  Metrics m = compute_metrics(gold, argmax_columns(probabilities), static_cast<std::size_t>(probabilities.rows()));
  m.log_loss = mean_log_loss(probabilities, gold);
  return m;
}

Metrics evaluate(const Predictor& predictor, const std::vector<Document>& docs, Index batch_size) {
  return evaluate(predictor, docs, inference_batches(docs, batch_size));
}

std::vector<BatchIndices> scoring_batches(const std::vector<Document>& docs, const Config& cfg) {
  return evaluation_batches(docs, cfg.batching.strategy, cfg.batching.batch_size,
                            derive_seed(cfg.trainer.seed, SeedStream::dev_batches));
}

}  // namespace han
