#pragma once
// How well a model's probabilities are calibrated on labelled documents, with its
// temperature (what han predict prints) and without it: the expected calibration error
// and the negative log-likelihood. Single-label and multi-label models.
#include <cstdint>
#include <string>
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

// The temperature calibration keeps: fit_temperature's T when it leaves the documents
// better calibrated on both counts, else 1. Not kept:
// - a fit at a search bound: there the documents are separated (or nearly), the NLL falls
//   without limit as T falls, and the T says more about the bound than about new text;
// - a fit that lowers the NLL by less than kMinNllGain of it;
// - a fit that raises the ECE.
struct TemperatureChoice {
  double temperature = 1.0;  // kept
  double fitted = 1.0;       // fit_temperature's T
  std::string why_one;       // why 1 was kept instead of the fit; "" when the fit is kept
};
constexpr double kMinNllGain = 0.01;
TemperatureChoice choose_temperature(Task task, const Matrix& logits, const LabelSets& gold);

// tempered_nll at choose_temperature's T: the loss the logits have once calibrated.
double calibrated_nll(Task task, const Matrix& logits, const LabelSets& gold);

// The ECE of answers (probabilities) as they are, for a model whose logits are not at hand
// (an ensemble averages its members' probabilities).
double answers_ece(Task task, const Matrix& probabilities, const LabelSets& gold);

}  // namespace han
