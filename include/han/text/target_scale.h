#pragma once
// Regression targets are learned standardised, (y - mean) / sd with the training set's
// mean and standard deviation, and turned back into numbers at prediction. The distinct
// training targets are kept too: eval rounds a prediction to the nearest of them.
#include <vector>

#include "han/text/documents.h"

namespace han {

// At most this many distinct training targets are kept for rounding (a rating scale has
// a few; a continuous target has no "nearest seen value" worth scoring).
constexpr std::size_t kMaxSeenTargets = 1000;

struct TargetScale {
  double mean = 0, sd = 1;
  std::vector<double> seen;  // distinct training targets, sorted; empty when more than kMaxSeenTargets

  double standardise(double y) const { return (y - mean) / sd; }
  double restore(double z) const { return mean + sd * z; }
  // The seen target nearest to y (the lower one on a tie); y itself when none are kept.
  double nearest_seen(double y) const;
};

// The scale of the training documents' targets. Targets that are all equal are an error
// naming `train_path` (there is nothing to learn).
TargetScale target_scale(const Documents& train, const std::string& train_path);

}  // namespace han
