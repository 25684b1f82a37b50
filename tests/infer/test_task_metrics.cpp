// Multi-label and regression scores against hand computations.
#include <catch2/catch.hpp>

#include <cmath>

#include "han/infer/multilabel_metrics.h"
#include "han/infer/regression_metrics.h"
#include "han/infer/task_scores.h"

using namespace han;

TEST_CASE("multi-label metrics by hand: micro/macro F1, subset accuracy, Hamming loss, P@1 and R@1", "[metrics]") {
  Matrix probs(3, 3);  // columns: documents
  probs << 0.9, 0.2, 0.7,  //
      0.6, 0.3, 0.1,       //
      0.1, 0.4, 0.8;
  // Answers at 0.5: {0, 1}; none over -> the top label {2}; {2, 0}.
  const std::vector<std::vector<std::int32_t>> gold = {{0}, {2}, {0, 2}};
  const MultilabelMetrics m = compute_multilabel_metrics(gold, probs, {0.5, 0.5, 0.5});
  CHECK(m.total == 3);
  CHECK(m.per_label[0].f1 == Approx(1));
  CHECK(m.per_label[1].precision == 0);  // answered once, never gold
  CHECK(m.per_label[1].support == 0);
  CHECK(m.per_label[2].f1 == Approx(1));
  CHECK(m.micro_precision == Approx(0.8));  // 4 right of 5 answered
  CHECK(m.micro_recall == Approx(1.0));
  CHECK(m.micro_f1 == Approx(2 * 0.8 / 1.8));
  CHECK(m.macro_f1 == Approx(2.0 / 3));
  CHECK(m.subset_accuracy == Approx(2.0 / 3));
  CHECK(m.hamming_loss == Approx(1.0 / 9));
  CHECK(m.precision_at_1 == Approx(1.0));
  CHECK(m.recall_at_1 == Approx((1 + 1 + 0.5) / 3));
  // A higher threshold answers fewer labels; the top label is answered all the same.
  const Vector p = probs.col(0);
  CHECK(answered_labels(p, {0.95, 0.95, 0.95}) == std::vector<Index>{0});
  CHECK(answered_labels(p, {0.5, 0.5, 0.05}) == std::vector<Index>{0, 1, 2});
}

TEST_CASE("regression metrics by hand: RMSE, MAE, Pearson, Spearman and rounded accuracy", "[metrics]") {
  const std::vector<double> gold = {1, 2, 3, 4}, predicted = {1.2, 1.9, 3.4, 3.0};
  const RegressionMetrics m = compute_regression_metrics(gold, predicted, {1, 2, 3, 4});
  CHECK(m.rmse == Approx(std::sqrt(1.21 / 4)));
  CHECK(m.mae == Approx(1.7 / 4));
  CHECK(m.pearson == Approx(0.8838167657788));
  CHECK(m.spearman == Approx(0.8));  // ranks 1 2 4 3: 1 - 6 x 2 / (4 x 15)
  CHECK(m.rounded_accuracy == Approx(0.75));  // 3.0 rounds to 3, gold 4
  CHECK(average_ranks({3, 1, 3, 2}) == std::vector<double>{3.5, 1, 3.5, 2});
  CHECK(std::isnan(compute_regression_metrics(gold, {2, 2, 2, 2}, {}).pearson));  // a constant prediction
  CHECK(std::isnan(compute_regression_metrics(gold, predicted, {}).rounded_accuracy));
}

TEST_CASE("task scores are looked up by name and listed per task", "[metrics]") {
  TaskScores s;
  s.task = Task::regression;
  s.regression.rmse = 1.5;
  s.regression.spearman = 0.7;
  s.loss = 2.25;
  CHECK(s.get(SelectMetric::rmse) == 1.5);
  CHECK(s.get(SelectMetric::spearman) == 0.7);
  CHECK(s.get(SelectMetric::loss) == 2.25);
  CHECK(s.headline().front().first == "rmse");
  CHECK(s.to_json({})["task"] == "regression");
  s.task = Task::multilabel;
  s.multilabel.micro_f1 = 0.6;
  CHECK(s.get(SelectMetric::micro_f1) == 0.6);
  CHECK(s.to_text({}).find("micro-F1 0.6000") != std::string::npos);
}
