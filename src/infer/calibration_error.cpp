#include "han/infer/calibration_error.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "han/core/error.h"
#include "han/infer/predictor.h"

namespace han {

double expected_calibration_error(const std::vector<double>& confidence, const std::vector<bool>& correct, int bins) {
  HAN_ASSERT(confidence.size() == correct.size() && bins > 0);
  if (confidence.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::vector<double> confidence_sum(static_cast<std::size_t>(bins), 0.0), right(static_cast<std::size_t>(bins), 0.0);
  std::vector<std::int64_t> count(static_cast<std::size_t>(bins), 0);
  for (std::size_t i = 0; i < confidence.size(); ++i) {
    // Right-closed bins: a confidence of exactly k/B belongs to bin k-1.
    const int bin = std::clamp(static_cast<int>(std::ceil(confidence[i] * bins)) - 1, 0, bins - 1);
    const auto b = static_cast<std::size_t>(bin);
    confidence_sum[b] += confidence[i];
    right[b] += correct[i] ? 1.0 : 0.0;
    ++count[b];
  }
  double ece = 0;
  for (std::size_t b = 0; b < count.size(); ++b)
    if (count[b] > 0) ece += std::abs(right[b] - confidence_sum[b]);  // = n_b * |acc_b - conf_b|
  return ece / static_cast<double>(confidence.size());
}

double single_label_ece(const Matrix& probs, const std::vector<std::int32_t>& gold) {
  HAN_ASSERT(static_cast<Index>(gold.size()) == probs.cols());
  const std::vector<std::int32_t> top = argmax_columns(probs);
  std::vector<double> confidence;
  std::vector<bool> correct;
  for (std::size_t i = 0; i < gold.size(); ++i) {
    confidence.push_back(probs(top[i], static_cast<Index>(i)));
    correct.push_back(top[i] == gold[i]);
  }
  return expected_calibration_error(confidence, correct);
}

double multilabel_ece(const Matrix& probs, const std::vector<std::vector<std::int32_t>>& gold) {
  HAN_ASSERT(static_cast<Index>(gold.size()) == probs.cols());
  std::vector<double> confidence;
  std::vector<bool> correct;
  for (Index i = 0; i < probs.cols(); ++i) {
    const auto& set = gold[static_cast<std::size_t>(i)];
    for (Index c = 0; c < probs.rows(); ++c) {
      confidence.push_back(probs(c, i));
      correct.push_back(std::find(set.begin(), set.end(), c) != set.end());
    }
  }
  return expected_calibration_error(confidence, correct);
}

}  // namespace han
