#include "han/train/linear_weight.h"

#include <spdlog/spdlog.h>

#include <cmath>

#include "han/core/error.h"
#include "han/infer/calibration.h"
#include "han/infer/evaluation.h"
#include "han/infer/predictor.h"
#include "han/infer/temperature.h"

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

std::vector<double> blend_dev_losses(const OutputHead& head, const Matrix& han, const Matrix& linear,
                                     const Documents& dev, const std::vector<double>& weights, bool calibrated) {
  calibrated = calibrated && head.task != Task::regression;
  OutputHead logits_head = head;
  logits_head.answers_logits = true;
  const LabelSets gold = calibrated ? gold_label_sets(head.task, dev) : LabelSets{};
  std::vector<double> losses;
  for (double w : weights) {
    const Matrix blend = blend_answers(han, linear, w);
    // Calibration fits its temperature to these logits (nn/head.h: ensemble_answers).
    losses.push_back(calibrated ? calibrated_nll(head.task, ensemble_answers(logits_head, blend), gold)
                                : score_answers(head, ensemble_answers(head, blend), dev).loss);
  }
  return losses;
}

LinearWeightChoice choose_linear_weight(const Config& cfg, const std::vector<const HanParams*>& members,
                                        const LinearMemberParams& linear, const OutputHead& head,
                                        const Documents& dev, const std::vector<BatchIndices>& batches,
                                        bool calibrated) {
  LinearWeightChoice c;
  c.equal_weight = equal_linear_weight(static_cast<int>(members.size()));
  if (cfg.model.linear_weight != kAutoReal) {
    c.weight = cfg.model.linear_weight;
    c.how = LinearWeightChoice::How::set;
    return c;
  }
  if (dev.empty()) {
    c.weight = c.equal_weight;
    c.how = LinearWeightChoice::How::no_dev;
    return c;
  }
  const Matrix han = Predictor(members, cfg.model, cfg.trainer.threads, head).predict(dev, batches);
  const Matrix lin = linear_member_answers(linear, head, dev);
  const std::vector<double> grid = weight_grid();
  const std::vector<double> losses = blend_dev_losses(head, han, lin, dev, grid, calibrated);
  std::size_t best = 0;
  for (std::size_t k = 1; k < grid.size(); ++k)
    if (losses[k] < losses[best]) best = k;
  c.weight = grid[best];
  c.how = LinearWeightChoice::How::on_dev;
  c.dev_loss = losses[best];
  c.equal_loss = blend_dev_losses(head, han, lin, dev, {c.equal_weight}, calibrated).front();
  return c;
}

LinearMemberResult train_weighted_linear_member(const Config& cfg, const Corpus& corpus,
                                                const std::vector<const HanParams*>& members, const OutputHead& head,
                                                const std::vector<BatchIndices>& dev_batches, bool calibrated,
                                                const LinearMemberParams* start) {
  LinearMemberResult r = train_linear_member(cfg, corpus, head, start);
  log_linear_member(r);
  const LinearWeightChoice choice = choose_linear_weight(cfg, members, r.params, head, corpus.dev, dev_batches, calibrated);
  log_linear_weight(choice);
  r.weight = choice.weight;
  return r;
}

void attach_linear_member(Classifier& c, const LinearMemberResult& linear) {
  HAN_ASSERT(c.linear.empty() && !linear.params.empty() && linear.weight != kAutoReal);
  c.config.model.linear_member = true;
  c.config.model.linear_weight = linear.weight;
  c.config.model.linear_chars = linear.params.gram_count() > 0 ? Switch::on : Switch::off;
  c.linear = linear.params;
}

void log_linear_weight(const LinearWeightChoice& c) {
  switch (c.how) {
    case LinearWeightChoice::How::set:
      spdlog::info("linear member weight: {:.2f} (set)", c.weight);
      break;
    case LinearWeightChoice::How::no_dev:
      spdlog::info("linear member weight: {:.2f} (auto, no dev set: the equal share)", c.weight);
      break;
    case LinearWeightChoice::How::on_dev:
      spdlog::info("linear member weight: {:.2f} (auto: the lowest dev loss, {:.4f}; the equal share {:.2f} gives {:.4f})",
                   c.weight, c.dev_loss, c.equal_weight, c.equal_loss);
      break;
  }
}

}  // namespace han
