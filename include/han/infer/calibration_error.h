#pragma once
// Expected calibration error (Guo et al. 2017): the predictions are put into equal-width
// confidence bins over [0, 1] (bin i holds (i/B, (i+1)/B], the first one 0 too); ECE is
// the sum over bins of |accuracy - mean confidence| weighted by the bin's share of the
// predictions. 0 for a perfectly calibrated model.
#include <cstdint>
#include <vector>

#include "han/core/types.h"

namespace han {

constexpr int kCalibrationBins = 15;

// confidence[i] in [0, 1]; correct[i]: whether prediction i was right. NaN for none.
double expected_calibration_error(const std::vector<double>& confidence, const std::vector<bool>& correct,
                                  int bins = kCalibrationBins);

// Single-label, probs (C, n): the confidence is the top probability, right when it is gold's.
double single_label_ece(const Matrix& probs, const std::vector<std::int32_t>& gold);

// Multi-label, probs (C, n): every (document, label) probability, right when the label is
// gold (each bin's share of gold labels against its mean probability).
double multilabel_ece(const Matrix& probs, const std::vector<std::vector<std::int32_t>>& gold);

}  // namespace han
