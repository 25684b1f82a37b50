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

// Mean over documents of the binary cross-entropy summed over labels (p clamped to
// [1e-12, 1 - 1e-12]).
double mean_binary_log_loss(const Matrix& probs, const Documents& docs) {
  double sum = 0;
  for (Index i = 0; i < probs.cols(); ++i) {
    Vector y = Vector::Zero(probs.rows());
    for (std::int32_t c : docs[static_cast<std::size_t>(i)].label_set) y(c) = 1;
    for (Index c = 0; c < probs.rows(); ++c) {
      const double p = std::clamp(static_cast<double>(probs(c, i)), 1e-12, 1 - 1e-12);
      sum -= y(c) > 0 ? std::log(p) : std::log(1 - p);
    }
  }
  return probs.cols() ? sum / static_cast<double>(probs.cols()) : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

TaskScores score_answers(const OutputHead& head, const Matrix& answers, const Documents& docs) {
  TaskScores s;
  s.task = head.task;
  if (head.task == Task::single) {
    s.single = score_predictions(answers, docs);
    s.loss = s.single.log_loss;
  } else if (head.task == Task::multilabel) {
    std::vector<std::vector<std::int32_t>> gold;
    for (const DocumentView d : docs) gold.emplace_back(d.label_set.begin(), d.label_set.end());
    s.multilabel = compute_multilabel_metrics(gold, answers, head.thresholds);
    s.loss = mean_binary_log_loss(answers, docs);
  } else {
    std::vector<double> gold, predicted;
    for (const DocumentView d : docs) gold.push_back(d.target);
    for (Index i = 0; i < answers.cols(); ++i) predicted.push_back(answers(0, i));
    s.regression = compute_regression_metrics(gold, predicted, head.scale.seen);
    // In the units of the training loss: the model learns the targets standardised.
    const double rmse = head.scale.sd > 0 ? s.regression.rmse / head.scale.sd : s.regression.rmse;
    s.loss = rmse * rmse;
  }
  return s;
}

TaskScores evaluate_task(const Predictor& predictor, const Documents& docs,
                         const std::vector<BatchIndices>& batches) {
  if (predictor.head().task == Task::single) {
    TaskScores s;
    s.single = evaluate(predictor, docs, batches);
    s.loss = s.single.log_loss;
    return s;
  }
  return score_answers(predictor.head(), predictor.predict(docs, batches), docs);
}

TaskScores evaluate_task(const Predictor& predictor, const Documents& docs, Index batch_size) {
  return evaluate_task(predictor, docs, inference_batches(docs, batch_size));
}

Metrics evaluate(const Predictor& predictor, const Documents& docs,
                 const std::vector<BatchIndices>& batches, PaddingAttention* padding) {
  return score_predictions(predictor.predict(docs, batches, nullptr, padding), docs);
}

Metrics score_predictions(const Matrix& probabilities, const Documents& docs) {
  std::vector<std::int32_t> gold;
  gold.reserve(docs.size());
  for (const DocumentView d : docs) gold.push_back(d.label);
  Metrics m = compute_metrics(gold, argmax_columns(probabilities), static_cast<std::size_t>(probabilities.rows()));
  m.log_loss = mean_log_loss(probabilities, gold);
  return m;
}

Metrics evaluate(const Predictor& predictor, const Documents& docs, Index batch_size) {
  return evaluate(predictor, docs, inference_batches(docs, batch_size));
}

std::vector<BatchIndices> scoring_batches(const Documents& docs, const Config& cfg) {
  return evaluation_batches(docs, cfg.batching.strategy, cfg.batching.batch_size,
                            derive_seed(cfg.trainer.seed, SeedStream::dev_batches));
}

}  // namespace han
