#pragma once
// model.linear_weight: the linear member's share of the ensemble's average (nn/linear_member.h,
// WeightedLinearMember); the HAN members' mean counts the rest. "auto" takes the share, on a
// grid of kLinearWeightStep strictly between 0 and 1, whose blend has the lowest dev loss.
// The loss, not the accuracy: a dev set's accuracy moves one document at a time and ties
// over most of the grid. When the run calibrates (trainer.calibrate), each blend's loss is
// taken at its own best temperature, as the model will predict: a blend is not penalised for
// a confidence that the temperature then corrects. Where the HAN reads better than word counts
// (long reviews) the share comes out small; where the words decide (topics, spam) large.
// Without a dev set the linear member counts as one more member: 1 / (N + 1).
#include <limits>
#include <string>
#include <vector>

#include "han/core/config.h"
#include "han/nn/head.h"
#include "han/nn/linear_member.h"
#include "han/nn/model.h"
#include "han/text/batcher.h"
#include "han/text/corpus.h"
#include "han/train/linear_member_training.h"
#include "han/text/documents.h"

namespace han {

constexpr double kLinearWeightStep = 0.05;

struct LinearWeightChoice {
  double weight = 0;
  std::string how;  // "set" (model.linear_weight), "auto", or "auto, no dev set"
  double dev_loss = std::numeric_limits<double>::quiet_NaN();    // the blend's at `weight` (auto with a dev set)
  double equal_weight = 0;                                       // 1 / (N + 1)
  double equal_loss = std::numeric_limits<double>::quiet_NaN();  // the blend's at equal_weight
};

// The equal share of a linear member beside `han_members` HAN members.
double equal_linear_weight(int han_members);

// The dev loss of (1 - w) han + w linear for each w in `weights` (answers: C x dev.size()),
// `tempered`: at the temperature that minimises it (not for regression).
std::vector<double> blend_dev_losses(const OutputHead& head, const Matrix& han, const Matrix& linear,
                                     const Documents& dev, const std::vector<double>& weights, bool tempered);

// model.linear_weight settled for `members` and `linear`: as set, or chosen on `dev` (scored
// in `batches`); `head` is the task's head without a temperature; `tempered`: the model
// will be calibrated on dev.
LinearWeightChoice choose_linear_weight(const Config& cfg, const std::vector<const HanParams*>& members,
                                        const LinearMemberParams& linear, const OutputHead& head,
                                        const Documents& dev, const std::vector<BatchIndices>& batches,
                                        bool tempered);

// What a run adds once its HAN members are trained: the linear member (train_linear_member)
// and its weight beside `members`, dev scored in `dev_batches` (`tempered` as above); both logged.
LinearMemberResult train_weighted_linear_member(const Config& cfg, const Corpus& corpus,
                                                const std::vector<const HanParams*>& members, const OutputHead& head,
                                                const std::vector<BatchIndices>& dev_batches, bool tempered);

// One log line: the share and, when chosen on dev, the loss it gave against the equal share's.
void log_linear_weight(const LinearWeightChoice& c);

}  // namespace han
