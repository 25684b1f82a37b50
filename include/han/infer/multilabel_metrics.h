#pragma once
// Multi-label scores from gold label sets and per-label probabilities. A document's
// answer is every label whose probability reaches its threshold, or its most probable
// label when none does (every document has at least one label).
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "han/core/types.h"
#include "han/infer/metrics.h"

namespace han {

struct MultilabelMetrics {
  std::int64_t total = 0;
  double micro_precision = 0, micro_recall = 0, micro_f1 = 0;  // over every (document, label) decision
  double macro_f1 = 0;         // unweighted mean of the per-label F1
  double subset_accuracy = 0;  // answer set == gold set
  double hamming_loss = 0;     // wrong (document, label) decisions / (documents x labels)
  double precision_at_1 = 0;   // the most probable label is gold
  double recall_at_1 = 0;      // mean share of a document's gold labels found at rank 1
  std::vector<ClassScores> per_label;
};

// The labels answered for one document: probabilities p (C), thresholds (C).
std::vector<Index> answered_labels(const Eigen::Ref<const Vector>& p, const std::vector<double>& thresholds);

// gold[i]: the label indices of document i; probs (C, n).
MultilabelMetrics compute_multilabel_metrics(const std::vector<std::vector<std::int32_t>>& gold, const Matrix& probs,
                                             const std::vector<double>& thresholds);

nlohmann::json multilabel_metrics_to_json(const MultilabelMetrics& m, const std::vector<std::string>& labels);
std::string multilabel_metrics_to_text(const MultilabelMetrics& m, const std::vector<std::string>& labels);

}  // namespace han
