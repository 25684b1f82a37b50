#pragma once
// model.linear_weight: the linear member's share of the ensemble's average (nn/linear_member.h,
// WeightedLinearMember); the HAN members' mean counts the rest. "auto" takes the share, on a
// grid of kLinearWeightStep strictly between 0 and 1, whose blend has the lowest dev loss.
// The loss, not the accuracy: a dev set's accuracy moves one document at a time and ties
// over most of the grid. When the run calibrates (trainer.calibrate), each blend's loss is
// taken at its own best temperature, as the model will predict: a blend is not penalised for
// a confidence that the temperature then corrects. The share follows what decides on the
// corpus: high where word counts do (spam), low where the HAN reads better (long reviews).
// Without a dev set the linear member counts as one more member (equal_linear_weight).
#include <limits>
#include <string>
#include <vector>

#include "han/core/config.h"
#include "han/infer/classifier.h"
#include "han/nn/head.h"
#include "han/nn/linear_member.h"
#include "han/nn/model.h"
#include "han/text/batcher.h"
#include "han/text/corpus.h"
#include "han/text/documents.h"
#include "han/train/linear_member_training.h"

namespace han {

constexpr double kLinearWeightStep = 0.05;

struct LinearWeightChoice {
  enum class How { set, on_dev, no_dev };  // model.linear_weight as set; auto on dev; auto without dev
  double weight = 0;
  How how = How::set;
  double dev_loss = std::numeric_limits<double>::quiet_NaN();    // the blend's at `weight` (on_dev)
  double equal_weight = 0;                                       // 1 / (N + 1)
  double equal_loss = std::numeric_limits<double>::quiet_NaN();  // the blend's at equal_weight (on_dev)
};

// The dev loss of blend_answers(han, linear, w) for each w in `weights` (answers: C x
// dev.size()); `calibrated`: at the temperature that minimises it (not for regression).
std::vector<double> blend_dev_losses(const OutputHead& head, const Matrix& han, const Matrix& linear,
                                     const Documents& dev, const std::vector<double>& weights, bool calibrated);

// model.linear_weight settled for `members` and `linear`: as set, or chosen on `dev` (scored
// in `batches`); `head` is the task's head without a temperature; `calibrated`: the model
// will be calibrated on dev.
LinearWeightChoice choose_linear_weight(const Config& cfg, const std::vector<const HanParams*>& members,
                                        const LinearMemberParams& linear, const OutputHead& head,
                                        const Documents& dev, const std::vector<BatchIndices>& batches,
                                        bool calibrated);

// What a run adds once its HAN members are trained: the linear member (train_linear_member)
// and its weight beside `members`, dev scored in `dev_batches` (`calibrated` as above); both
// logged. `start`: the parent's member the new one continues (train_linear_member), or null.
LinearMemberResult train_weighted_linear_member(const Config& cfg, const Corpus& corpus,
                                                const std::vector<const HanParams*>& members, const OutputHead& head,
                                                const std::vector<BatchIndices>& dev_batches, bool calibrated,
                                                const LinearMemberParams* start = nullptr);

// The member and its weight joined to a model (which must not have one yet).
void attach_linear_member(Classifier& c, const LinearMemberResult& linear);

// One log line: the share and, when chosen on dev, the loss it gave against the equal share's.
void log_linear_weight(const LinearWeightChoice& c);

}  // namespace han
