#include "han/train/calibration.h"

#include <cmath>

#include "han/core/error.h"
#include "han/core/json_text.h"
#include "han/infer/multilabel_metrics.h"
#include "han/infer/predictor.h"
#include "han/infer/temperature.h"
#include "han/infer/thresholds.h"
#include <fmt/format.h>

namespace han {

nlohmann::json DevCalibration::to_json() const {
  nlohmann::json j = scores.to_json();
  if (!temperature.why_one.empty()) j["fitted_temperature"] = temperature.fitted, j["kept_1"] = temperature.why_one;
  if (!std::isnan(micro_f1_tuned)) {
    j["micro_f1_untuned"] = finite_or_null(micro_f1_untuned);
    j["micro_f1_tuned"] = finite_or_null(micro_f1_tuned);
  }
  return j;
}

std::string DevCalibration::to_text() const {
  std::string out = fmt::format("temperature {:.4f}, ECE {:.4f} -> {:.4f}, NLL {:.4f} -> {:.4f}", scores.temperature,
                                scores.ece_before, scores.ece_after, scores.nll_before, scores.nll_after);
  if (!std::isnan(micro_f1_tuned))
    out += fmt::format(", micro-F1 {:.4f} at thresholds {} -> {:.4f} at tuned thresholds", micro_f1_untuned,
                       kDefaultThreshold, micro_f1_tuned);
  if (!temperature.why_one.empty()) out += "; kept T = 1: " + temperature.why_one;
  return out;
}

bool calibrates_on_dev(const Config& cfg, bool asked, const Documents& dev) {
  return asked && cfg.trainer.calibrate && !dev.empty() && cfg.model.task != Task::regression;
}

DevCalibration calibrate_on_dev(Classifier& model, const Documents& dev, int threads) {
  HAN_ASSERT(model.head.task != Task::regression && !dev.empty());
  OutputHead& head = model.head;
  OutputHead logits_head = head;
  logits_head.answers_logits = true;
  // Batched as han predict batches (length-sorted), so the fit sees what prediction computes.
  // An ensemble's "logits" are the log of its members' mean probabilities (nn/head.h).
  const Matrix logits = Predictor(model.members(), model.config.model, threads, logits_head, model.weighted_linear_member())
                            .predict(dev, model.config.batching.batch_size);
  const LabelSets gold = gold_label_sets(head.task, dev);
  DevCalibration r;
  r.temperature = choose_temperature(head.task, logits, gold);
  head.temperature = r.temperature.temperature;
  r.scores = calibration_scores(head, logits, gold);
  if (head.task == Task::multilabel) {
    const Matrix probs = head_answers(head, logits);
    const std::vector<double> untuned(head.thresholds.size(), kDefaultThreshold);
    head.thresholds = tune_thresholds(probs, gold);
    r.micro_f1_untuned = compute_multilabel_metrics(gold, probs, untuned).micro_f1;
    r.micro_f1_tuned = compute_multilabel_metrics(gold, probs, head.thresholds).micro_f1;
  }
  return r;
}

DevCalibration calibrate_model_file(const std::string& path, const Documents& dev, int threads,
                                    OutputHead& head) {
  nlohmann::json header;
  Classifier model = load_classifier(path, nullptr, &header);
  const DevCalibration r = calibrate_on_dev(model, dev, threads);
  header.erase("head");  // written anew from the fitted one
  header["calibration"] = r.to_json();
  save_classifier(path, model, header);
  head = model.head;
  return r;
}

}  // namespace han
