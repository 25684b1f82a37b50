// Calibration after training: the expected calibration error against hand computations,
// temperature fitting on synthetic logits whose temperature is known, per-label F1
// thresholds, and the temperature in the head and the model file.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "han/infer/calibration.h"
#include "han/infer/calibration_error.h"
#include "han/infer/predictor.h"
#include "han/infer/temperature.h"
#include "han/infer/thresholds.h"
#include "han/nn/head.h"
#include "han/nn/loss.h"
#include "han/nn/multilabel_loss.h"

using namespace han;

TEST_CASE("expected calibration error by hand, 15 equal-width bins", "[calibration]") {
  // Bins of width 1/15: 0.95 and 0.96 share bin 14 (one right: |0.5 - 0.955| x 2), 0.9 is
  // bin 13 (right: 0.1), 0.55 bin 8 (wrong: 0.55), 0.25 bin 3 (right: 0.75).
  const double ece = expected_calibration_error({0.95, 0.96, 0.9, 0.55, 0.25}, {true, false, true, false, true});
  CHECK(ece == Approx((0.91 + 0.1 + 0.55 + 0.75) / 5));
  // 10 predictions at 0.7, 7 of them right: calibrated.
  std::vector<bool> right(10, false);
  std::fill(right.begin(), right.begin() + 7, true);
  CHECK(expected_calibration_error(std::vector<double>(10, 0.7), right) == Approx(0).margin(1e-12));
  // A confidence of exactly 1 (or 0) falls in the last (first) bin.
  CHECK(expected_calibration_error({1.0, 0.0}, {true, false}) == Approx(0).margin(1e-12));
  CHECK(std::isnan(expected_calibration_error({}, {})));
  // One bin: mean confidence 0.75 against accuracy 0.5.
  CHECK(expected_calibration_error({0.7, 0.8}, {true, false}, 1) == Approx(0.25));
}

TEST_CASE("ECE from probabilities: top label (single) or every label (multi-label)", "[calibration]") {
  Matrix p(2, 3);  // columns: documents
  p << 0.9, 0.3, 0.5,  //
      0.1, 0.7, 0.5;
  // Top labels 0 (0.9, right), 1 (0.7, wrong), 0 on the tie (0.5, right).
  CHECK(single_label_ece(p, {0, 0, 0}) == Approx((0.1 + 0.7 + 0.5) / 3));
  // Six (document, label) probabilities: 0.9 y, 0.1 n, 0.3 n, 0.7 y, 0.5 y, 0.5 n.
  // Bins: 0.1 (n: 0.1), 0.3 (n: 0.3), 0.5 x2 (one y: 0), 0.7 (y: 0.3), 0.9 (y: 0.1).
  CHECK(multilabel_ece(p, {{0}, {1}, {0}}) == Approx((0.1 + 0.3 + 0 + 0.3 + 0.1) / 6));
}

namespace {

// n documents of C classes with logits z ~ N(0, 2^2) whose gold labels are drawn from
// softmax(z) (single) or sigmoid(z) per label (multilabel): calibrated at T = 1. The
// logits handed out are z x T0, so the fitted temperature must come back as T0.
void synthetic(Task task, double t0, Matrix& logits, std::vector<std::vector<std::int32_t>>& gold) {
  const Index C = 4, n = 6000;
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 2.0f);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  logits.resize(C, n);
  gold.assign(static_cast<std::size_t>(n), {});
  for (Index i = 0; i < n; ++i) {
    Matrix z(C, 1);
    for (Index c = 0; c < C; ++c) z(c, 0) = normal(rng);
    const Matrix p = task == Task::single ? softmax_columns(z) : sigmoid(z);
    auto& g = gold[static_cast<std::size_t>(i)];
    double u = uniform(rng);
    for (Index c = 0; c < C; ++c) {
      if (task == Task::multilabel && uniform(rng) < p(c, 0)) g.push_back(static_cast<std::int32_t>(c));
      if (task == Task::single && g.empty() && (u -= p(c, 0)) < 0) g.push_back(static_cast<std::int32_t>(c));
    }
    if (task == Task::single && g.empty()) g.push_back(static_cast<std::int32_t>(C - 1));
    logits.col(i) = z * static_cast<float>(t0);
  }
}

}  // namespace

TEST_CASE("temperature fitting recovers a known temperature on synthetic logits", "[calibration]") {
  for (Task task : {Task::single, Task::multilabel}) {
    for (double t0 : {0.4, 2.5}) {
      CAPTURE(to_string(task), t0);
      Matrix logits;
      std::vector<std::vector<std::int32_t>> gold;
      synthetic(task, t0, logits, gold);
      const double t = fit_temperature(task, logits, gold);
      CHECK(t == Approx(t0).epsilon(0.06));
      // It is the minimum of the NLL, and better than no temperature.
      const double best = tempered_nll(task, logits, gold, t);
      CHECK(best <= tempered_nll(task, logits, gold, t * 1.05));
      CHECK(best <= tempered_nll(task, logits, gold, t / 1.05));
      CHECK(best < tempered_nll(task, logits, gold, 1.0));
    }
  }
}

TEST_CASE("calibration keeps a fit only when it leaves dev better calibrated, and says why it kept T = 1",
          "[calibration]") {
  // Miscalibrated by T0 = 2.5: the fit is kept.
  Matrix logits;
  LabelSets gold;
  synthetic(Task::single, 2.5, logits, gold);
  const TemperatureChoice kept = choose_temperature(Task::single, logits, gold);
  CHECK(kept.why_one.empty());
  CHECK(kept.temperature == kept.fitted);
  CHECK(kept.temperature == Approx(2.5).epsilon(0.06));
  CHECK(calibrated_nll(Task::single, logits, gold) == Approx(tempered_nll(Task::single, logits, gold, kept.fitted)));

  // Calibrated already (T0 = 1): the fit gains less than 1 % of the NLL.
  synthetic(Task::single, 1.0, logits, gold);
  const TemperatureChoice calibrated = choose_temperature(Task::single, logits, gold);
  CHECK(calibrated.temperature == 1.0);
  CHECK(calibrated.fitted != 1.0);
  CHECK(calibrated.why_one.find("lowers NLL by less than 1 %") != std::string::npos);
  CHECK(calibrated_nll(Task::single, logits, gold) == tempered_nll(Task::single, logits, gold, 1.0));

  // Separated: every gold logit leads, so the NLL falls as T falls, down to the bound.
  Matrix separated(3, 50);
  LabelSets labels;
  for (Index i = 0; i < 50; ++i) {
    separated.col(i) << 0.1f, 0.2f, 0.3f;
    separated(i % 3, i) = 2.0f;
    labels.push_back({static_cast<std::int32_t>(i % 3)});
  }
  const TemperatureChoice bound = choose_temperature(Task::single, separated, labels);
  CHECK(bound.temperature == 1.0);
  CHECK(bound.fitted < kMinTemperature * 1.01);
  CAPTURE(bound.why_one);
  CHECK(bound.why_one.rfind("the fit reached its search bound (T 0.0500, NLL ", 0) == 0);
  CHECK(bound.why_one.find(": dev is separated without error)") != std::string::npos);

  // A fit that lowers the NLL but raises the ECE: mostly right at 0.9, and two confident
  // mistakes that pull the NLL's T up (flattening the 0.9s away from their 0.9 accuracy).
  Matrix mixed(2, 100);
  LabelSets right;
  for (Index i = 0; i < 100; ++i) {
    const bool wrong = i < 10;
    mixed.col(i) << static_cast<float>(std::log(9.0)), 0.0f;  // p = 0.9 for label 0
    if (i < 2) mixed.col(i) << 6.0f, 0.0f;                    // p = 0.9975, and wrong
    right.push_back({wrong ? 1 : 0});
  }
  const TemperatureChoice ece = choose_temperature(Task::single, mixed, right);
  CAPTURE(ece.fitted, ece.why_one);
  CHECK(ece.temperature == 1.0);
  CHECK(ece.why_one.find(") raises ECE ") != std::string::npos);
}

TEST_CASE("tempered NLL by hand", "[calibration]") {
  Matrix z(2, 1);
  z << 2, 0;
  // softmax([1, 0])[0] = e / (e + 1).
  CHECK(tempered_nll(Task::single, z, {{0}}, 2.0) == Approx(-std::log(std::exp(1.0) / (std::exp(1.0) + 1))));
  // sigmoid(1) for the gold label 0, 1 - sigmoid(0) for label 1.
  const double s = 1 / (1 + std::exp(-1.0));
  CHECK(tempered_nll(Task::multilabel, z, {{0}}, 2.0) == Approx(-std::log(s) - std::log(0.5)));
  // Finite for huge logits.
  z << 1e30f, -1e30f;
  CHECK(std::isfinite(tempered_nll(Task::multilabel, z, {{1}}, 1.0)));
}

TEST_CASE("per-label thresholds maximise each label's F1 unless it stays under 0.5, ties go to the cut nearest 0.5", "[calibration]") {
  // Answering the top 3 (0.9, 0.8, 0.4) gives F1 2x2 / (3 + 2) = 0.8, the best: cut (0.4 + 0.3) / 2.
  CHECK(best_f1_threshold({0.9, 0.8, 0.4, 0.3, 0.1}, {true, false, true, false, false}) == Approx(0.35));
  // No positive: nothing to maximise, the default stays.
  CHECK(best_f1_threshold({0.9, 0.2}, {false, false}) == kDefaultThreshold);
  // F1 2/3 answering the top 1 (cut 0.75) or all 4 (cut 0.15): 0.75 is nearer 0.5.
  CHECK(best_f1_threshold({0.8, 0.7, 0.6, 0.3}, {true, false, false, true}) == Approx(0.75));
  // The one positive ranks last of 5: the best F1, 2 / (5 + 1), is under kMinTunedF1.
  CHECK(best_f1_threshold({0.9, 0.8, 0.7, 0.6, 0.2}, {false, false, false, false, true}) == kDefaultThreshold);
  // Equal probabilities are never split.
  CHECK(best_f1_threshold({0.6, 0.6, 0.2}, {true, false, false}) == Approx(0.4));
  Matrix p(2, 3);
  p << 0.9, 0.2, 0.7,  //
      0.1, 0.3, 0.05;
  const std::vector<double> t = tune_thresholds(p, {{0}, {0}, {}});
  CHECK(t[0] == Approx(0.1));  // answering all three: F1 2x2 / (3 + 2) = 0.8 beats 1 / (1 + 2) x 2
  CHECK(t[1] == kDefaultThreshold);
}

TEST_CASE("the head's temperature softens answers, keeps the argmax and is stored only when set", "[calibration]") {
  Matrix z(3, 2);
  z << 2, -1,  //
      0.5, 3,  //
      -1, 0;
  OutputHead head = initial_head(Task::single, 3);
  const Matrix before = head_answers(head, z);
  CHECK(before == softmax_columns(z));  // bit for bit without a temperature
  CHECK(!head_has_section(head));
  head.temperature = 2.0;
  const Matrix after = head_answers(head, z);
  CHECK(after.isApprox(softmax_columns(z / 2.0f)));
  CHECK(argmax_columns(after) == argmax_columns(before));
  CHECK(after.colwise().maxCoeff().maxCoeff() < before.colwise().maxCoeff().maxCoeff());
  REQUIRE(head_has_section(head));
  CHECK(head_from_json(head_to_json(head), Task::single, 3, "m.han").temperature == 2.0);
  head.answers_logits = true;
  CHECK(head_answers(head, z) == z);
  // Multi-label: sigmoid(z / T); a file without thresholds or temperature reads as 0.5 and 1.
  OutputHead multi = initial_head(Task::multilabel, 3);
  multi.temperature = 0.5;
  CHECK(head_answers(multi, z).isApprox(sigmoid(z * 2.0f)));
  const OutputHead old = head_from_json({{"task", "multilabel"}}, Task::multilabel, 3, "m.han");
  CHECK(old.thresholds == std::vector<double>(3, 0.5));
  CHECK(old.temperature == 1.0);
  CHECK_THROWS_WITH(head_from_json({{"task", "single"}, {"temperature", -1}}, Task::single, 3, "m.han"),
                    Catch::Contains("m.han: model file is corrupted (bad temperature)"));
}
