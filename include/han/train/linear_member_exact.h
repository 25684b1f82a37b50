#pragma once
// The linear member fitted exactly (train/linear_solver.h): one L2-regularised model per
// output, as the one-vs-rest TF-IDF linear classifiers that are text classification's
// strong baseline. single: logistic regression per label (one for two labels); multilabel:
// per label; regression: least squares on the standardised target (ridge). C is chosen on
// dev by steps of kLinearCStep within [kMinLinearC, kMaxLinearC]: from the first C up while
// a step wins, and down when the first step up loses (1, 4, 16, ... from kMinLinearC). The
// member's temperature is fitted on dev with each C and folded into its weights, so its
// probabilities are calibrated before they are averaged in, and C is the one with the
// lowest tempered dev loss (dev squared error for regression). Without dev, C = kLinearCWithoutDev.
#include <limits>

#include "han/core/config.h"
#include "han/nn/head.h"
#include "han/train/linear_member_training.h"

namespace han {

constexpr double kMinLinearC = 1, kMaxLinearC = 1024, kLinearCStep = 4;
constexpr double kLinearCWithoutDev = 16;

// Where the C search starts: at `c` (0: kMinLinearC), each problem's solver from `solutions`
// (empty: from zeros). A fit of nearby features at its best C saves the long path up from
// kMinLinearC, whose first, cold fit costs the most.
// With `beat`, the search stops at the first C unless its dev loss is lower than that.
struct LinearStart {
  double c = 0;
  LinearSolutions solutions;
  double beat = std::numeric_limits<double>::infinity();
};

// `member` holds the features and the training documents' features
// (linear_member_init_with_features); its weights are fitted here.
LinearMemberResult fit_linear_member(const Config& cfg, const Corpus& corpus, const OutputHead& head,
                                     LinearMemberInit member, const LinearStart& start = {});

}  // namespace han
