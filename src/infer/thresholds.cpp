#include "han/infer/thresholds.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "han/core/error.h"
#include "han/nn/head.h"

namespace han {

double best_f1_threshold(const std::vector<double>& probabilities, const std::vector<bool>& positive) {
  HAN_ASSERT(probabilities.size() == positive.size());
  const auto positives = std::count(positive.begin(), positive.end(), true);
  if (positives == 0) return kDefaultThreshold;
  std::vector<std::size_t> order(probabilities.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return probabilities[x] > probabilities[y]; });
  double best_f1 = -1, best = kDefaultThreshold;
  std::int64_t true_positives = 0;
  for (std::size_t k = 0; k < order.size(); ++k) {  // answer the k + 1 most probable documents
    true_positives += positive[order[k]] ? 1 : 0;
    const double p = probabilities[order[k]];
    const double next = k + 1 < order.size() ? probabilities[order[k + 1]] : 0.0;
    if (next == p) continue;  // no cut between equal probabilities
    const double f1 = 2.0 * static_cast<double>(true_positives) / static_cast<double>(k + 1 + positives);
    const double cut = (p + next) / 2;
    const bool nearer = std::abs(cut - kDefaultThreshold) < std::abs(best - kDefaultThreshold);
    if (f1 > best_f1 + 1e-12 || (std::abs(f1 - best_f1) <= 1e-12 && nearer)) {
      best_f1 = f1;
      best = cut;
    }
  }
  return best_f1 < kMinTunedF1 ? kDefaultThreshold : best;
}

std::vector<double> tune_thresholds(const Matrix& probs, const std::vector<std::vector<std::int32_t>>& gold) {
  HAN_ASSERT(static_cast<Index>(gold.size()) == probs.cols());
  std::vector<double> thresholds;
  for (Index c = 0; c < probs.rows(); ++c) {
    std::vector<double> p;
    std::vector<bool> positive;
    for (Index i = 0; i < probs.cols(); ++i) {
      const auto& set = gold[static_cast<std::size_t>(i)];
      p.push_back(probs(c, i));
      positive.push_back(std::find(set.begin(), set.end(), c) != set.end());
    }
    thresholds.push_back(best_f1_threshold(p, positive));
  }
  return thresholds;
}

}  // namespace han
