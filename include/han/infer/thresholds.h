#pragma once
// Multi-label decision thresholds tuned on held-out documents, one per label, each
// maximising that label's F1 on them. A label keeps kDefaultThreshold when it has no
// held-out positive (there is no F1 to maximise) or when its best F1 is below kMinTunedF1
// (Yang's SCutFBR, 2001): a rare label whose few positives rank low would otherwise get a
// cut that answers it for hundreds of documents to catch one or two. The cut is placed midway between the
// two neighbouring held-out probabilities it separates, and among equally good cuts the
// one nearest kDefaultThreshold wins (fewest changes to the untuned answers). Each label
// is tuned alone: the rule that a document with no label over its threshold gets its most
// probable one is left out.
#include <cstdint>
#include <vector>

#include "han/core/types.h"

namespace han {

constexpr double kMinTunedF1 = 0.5;

// One label's threshold from its held-out probabilities and whether each document has it.
double best_f1_threshold(const std::vector<double>& probabilities, const std::vector<bool>& positive);

// probs (C, n); gold[i]: document i's label set. One threshold per label.
std::vector<double> tune_thresholds(const Matrix& probs, const std::vector<std::vector<std::int32_t>>& gold);

}  // namespace han
