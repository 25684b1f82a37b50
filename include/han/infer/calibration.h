#pragma once
// How well a model's probabilities are calibrated on labelled documents, with its
// temperature (what han predict prints) and without it: the expected calibration error
// and the negative log-likelihood. Single-label and multi-label models.
#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "han/nn/head.h"
#include "han/text/documents.h"

namespace han {

struct CalibrationScores {
  double temperature = 1.0;
  double ece_before = 0, ece_after = 0;  // 15 bins (infer/calibration_error.h)
  double nll_before = 0, nll_after = 0;  // mean per document (infer/temperature.h)
  nlohmann::json to_json() const;
};

// The documents' gold answers as label sets: one label each (single) or the label set.
std::vector<std::vector<std::int32_t>> gold_label_sets(Task task, const Documents& docs);

using LabelSets = std::vector<std::vector<std::int32_t>>;

// Scores of logits (C, n) at T = 1 (before) and at head.temperature (after); gold as
// gold_label_sets gives it.
CalibrationScores calibration_scores(const OutputHead& head, const Matrix& logits, const LabelSets& gold);

// The ECE of answers (probabilities) as they are, for a model whose logits are not at hand
// (an ensemble averages its members' probabilities).
double answers_ece(Task task, const Matrix& probabilities, const LabelSets& gold);

}  // namespace han
