#pragma once
// Training the linear member (model.linear_member, nn/linear_member.h) once the HAN is
// trained. It is a convex model on sparse features, fitted exactly by LIBLINEAR
// (train/linear_member_exact.h) with its regularisation chosen on dev. Two cases take
// stochastic gradient descent instead (LinearSolver::sgd): documents of unequal weights
// (data weights or loss.class_weights; LIBLINEAR weighs every document alike), and a
// member continued from a parent model (trainer.init), which must start from the parent's
// weights and stay near them, where an exact fit would forget them. SGD runs the run's
// optimizer (optimizer.*, schedule included) at optimizer.bag_lr_scale times its learning
// rate, batches of batching.batch_size documents in a seeded order, up to
// kLinearMemberEpochs epochs, and keeps the epoch with the lowest dev loss (patience as
// trainer.patience; without dev, the last). Every rank of a distributed run trains the same one.
#include <limits>
#include <vector>

#include <nlohmann/json.hpp>

#include "han/core/config.h"
#include "han/nn/head.h"
#include "han/nn/linear_member.h"
#include "han/text/corpus.h"

namespace han {

constexpr int kLinearMemberEpochs = 30;

enum class LinearSolver { liblinear, sgd };

// LIBLINEAR's solutions, one per problem (features..., bias).
using LinearSolutions = std::vector<std::vector<double>>;

struct LinearMemberResult {
  LinearMemberParams params;
  LinearSolver solver = LinearSolver::sgd;
  double c = 0;        // liblinear: the regularisation C
  bool c_on_dev = false;  // liblinear: C chosen on dev
  int epochs = 0;      // sgd: trained
  int best_epoch = 0;  // sgd: kept
  double dev_loss = std::numeric_limits<double>::quiet_NaN();  // mean, at the best epoch
  double seconds = 0;
  double weight = kAutoReal;  // its share of the average, once settled (train/linear_weight.h)
  LinearSolutions solutions;  // liblinear: each problem's weights at c, as the solver gave them (not saved)
  // {"solver", "C" or "best_epoch" and "epochs", "pairs", "char_grams", "dev_loss" (null without dev),
  // "weight"}: in the model header,
  // which holds no timing so that the same training writes the same file (a resumed run too).
  nlohmann::json to_json() const;
  // to_json() and "seconds": in train's summary.
  nlohmann::json summary_json() const;
  // The member with its weight; no params when there is none.
  WeightedLinearMember weighted() const { return {params.empty() ? nullptr : &params, weight}; }
};

// One log line: what training the linear member came to.
void log_linear_member(const LinearMemberResult& r);

// `head`: the task's head as the model starts (no temperature). `start`, when given (a run
// from a parent model with a member for the same labels: init_model.h), is where training
// starts: its weights and idf for the words it knows (the vocabulary's first columns),
// zeros and the new data's idf for words appended since.
LinearMemberResult train_linear_member(const Config& cfg, const Corpus& corpus, const OutputHead& head,
                                       const LinearMemberParams* start = nullptr);

// The member's answers for every document of `docs` (C x docs.size()), by `head`.
Matrix linear_member_answers(const LinearMemberParams& p, const OutputHead& head, const Documents& docs,
                             int threads = 1);

// The config a run's HAN part trains with (and its model files hold until the linear
// member joins): `cfg` without model.linear_member.
Config without_linear_member(Config cfg);

}  // namespace han
