#include "han/train/linear_weight.h"

#include <spdlog/spdlog.h>

#include <cmath>

#include "han/core/error.h"
#include "han/infer/calibration.h"
#include "han/infer/evaluation.h"
#include "han/infer/predictor.h"
#include "han/infer/temperature.h"
#include "han/train/linear_member_training.h"

namespace han {
namespace {

// kLinearWeightStep, 2 kLinearWeightStep, ..., 1 - kLinearWeightStep.
std::vector<double> weight_grid() {
  std::vector<double> grid;
  const int steps = static_cast<int>(std::lround(1.0 / kLinearWeightStep));
  for (int k = 1; k < steps; ++k) grid.push_back(static_cast<double>(k) / steps);  // 0.7, not 0.7000000000000001
  return grid;
}

}  // namespace

double equal_linear_weight(int han_members) {
  HAN_ASSERT(han_members >= 1);
  return 1.0 / (han_members + 1);
}

std::vector<double> blend_dev_losses(const OutputHead& head, const Matrix& han, const Matrix& linear,
                                     const Documents& dev, const std::vector<double>& weights, bool tempered) {
  tempered = tempered && head.task != Task::regression;
  OutputHead logits_head = head;
  logits_head.answers_logits = true;
  const LabelSets gold = tempered ? gold_label_sets(head.task, dev) : LabelSets{};
  std::vector<double> losses;
  for (double w : weights) {
    const Scalar s = static_cast<Scalar>(w);
    const Matrix blend = (1 - s) * han + s * linear;
    if (!tempered) {
      losses.push_back(score_answers(head, ensemble_answers(head, blend), dev).loss);
      continue;
    }
    const Matrix logits = ensemble_answers(logits_head, blend);  // what calibration fits the temperature on
    losses.push_back(tempered_nll(head.task, logits, gold, fit_temperature(head.task, logits, gold)));
  }
  return losses;
}

LinearWeightChoice choose_linear_weight(const Config& cfg, const std::vector<const HanParams*>& members,
                                        const LinearMemberParams& linear, const OutputHead& head,
                                        const Documents& dev, const std::vector<BatchIndices>& batches,
                                        bool tempered) {
  LinearWeightChoice c;
  const double equal = equal_linear_weight(static_cast<int>(members.size()));
  c.equal_weight = equal;
  if (cfg.model.linear_weight != kAutoReal) {
    c.weight = cfg.model.linear_weight;
    c.how = "set";
    return c;
  }
  if (dev.empty()) {
    c.weight = equal;
    c.how = "auto, no dev set";
    return c;
  }
  const Matrix han = Predictor(members, cfg.model, cfg.trainer.threads, head).predict(dev, batches);
  const Matrix lin = linear_member_answers(linear, head, dev);
  const std::vector<double> grid = weight_grid();
  const std::vector<double> losses = blend_dev_losses(head, han, lin, dev, grid, tempered);
  std::size_t best = 0;
  for (std::size_t k = 1; k < grid.size(); ++k)
    if (losses[k] < losses[best]) best = k;
  c.weight = grid[best];
  c.how = "auto";
  c.dev_loss = losses[best];
  c.equal_loss = blend_dev_losses(head, han, lin, dev, {equal}, tempered).front();
  return c;
}

LinearMemberResult train_weighted_linear_member(const Config& cfg, const Corpus& corpus,
                                                const std::vector<const HanParams*>& members, const OutputHead& head,
                                                const std::vector<BatchIndices>& dev_batches, bool tempered) {
  LinearMemberResult r = train_linear_member(cfg, corpus, head);
  log_linear_member(r);
  const LinearWeightChoice choice = choose_linear_weight(cfg, members, r.params, head, corpus.dev, dev_batches, tempered);
  log_linear_weight(choice);
  r.weight = choice.weight;
  return r;
}

void log_linear_weight(const LinearWeightChoice& c) {
  if (std::isfinite(c.dev_loss))
    spdlog::info("linear member weight: {:.2f} ({}: the lowest dev loss, {:.4f}; the equal share {:.2f} gives {:.4f})",
                 c.weight, c.how, c.dev_loss, c.equal_weight, c.equal_loss);
  else
    spdlog::info("linear member weight: {:.2f} ({})", c.weight, c.how);
}

}  // namespace han
