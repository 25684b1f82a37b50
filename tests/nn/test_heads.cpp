// The output heads of each task (model.task): their losses against hand computations and
// finite differences, whole-model gradients through them, class weights and the head's
// record in the model file.
#include <catch2/catch.hpp>

#include <cmath>

#include "han/nn/head.h"
#include "han/nn/loss.h"
#include "han/nn/model.h"
#include "han/nn/multilabel_loss.h"
#include "han/nn/parameters.h"
#include "han/nn/regression_loss.h"
#include "han/text/class_weights.h"
#include "nn/gradcheck_han.h"
#include "support/documents.h"
#include "support/gradcheck.h"

using namespace han;
using han::test::check_gradient;
using han::test::kHanLossScale;
using han::test::kHanStep;
using han::test::random_matrix;

namespace {

std::vector<Document> sample_docs() { return han::test::padded_sample_docs(); }

ModelConfig small_config() {
  ModelConfig cfg;
  cfg.embedding_dim = 5;
  cfg.word_hidden = 3;
  cfg.sentence_hidden = 4;
  cfg.attention_dim = 3;
  return cfg;
}

// Every parameter's gradient through the head's loss (kHanLossScale x the batch mean),
// against finite differences.
void check_model_gradients(const OutputHead& head, const LossConfig& loss_config, const Batch& batch, Index outputs) {
  ModelConfig cfg = small_config();
  cfg.bag = Bag::words;  // the bag-of-words term feeds each head's logits too
  Rng rng(5);
  HanParams p = han_init(cfg, 12, outputs, rng);
  han::test::widen_for_gradcheck(p, rng);
  fill_uniform(p.bag.W, -1, 1, rng);
  const double scale = kHanLossScale / static_cast<double>(batch.size());
  auto loss = [&](Matrix* d_logits, HanCache& c) {
    const Matrix logits = han_forward(p, cfg, batch, nullptr, c);
    Matrix d;
    const double l = head_loss(head, loss_config, logits, batch, scale, d);
    if (d_logits) *d_logits = d;
    return l * scale;
  };
  HanCache c;
  Matrix d_logits;
  loss(&d_logits, c);
  HanParams g = zeros_like(p);
  han_backward(p, c, d_logits, g);
  for (ParamRef& r : zip_params(p, g)) {
    if (r.name == "embedding.table") continue;  // the softmax test checks the shared layers' columns
    check_gradient(r.name, *r.value, *r.grad, [&] {
      HanCache c2;
      return loss(nullptr, c2);
    }, 24, kHanStep);
  }
}

}  // namespace

TEST_CASE("binary cross-entropy from logits: hand values, finite for huge logits, gradient", "[heads][gradcheck]") {
  // x = 0: -log(1/2) per label whatever the target; x = 2, y = 1: log(1 + e^-2).
  Matrix logits(2, 2), targets(2, 2), d;
  logits << 0, 2, 0, -3;
  targets << 1, 1, 0, 0;
  const double loss = sigmoid_binary_cross_entropy(logits, targets, {}, 1.0, d);
  CHECK(loss == Approx(2 * std::log(2.0) + std::log1p(std::exp(-2.0)) + std::log1p(std::exp(-3.0))));
  CHECK(d(0, 1) == Approx(1 / (1 + std::exp(-2.0)) - 1));
  // Weights scale each document's terms.
  const double weighted = sigmoid_binary_cross_entropy(logits, targets, {2.0f, 0.5f}, 1.0, d);
  CHECK(weighted == Approx(2 * 2 * std::log(2.0) + 0.5 * (std::log1p(std::exp(-2.0)) + std::log1p(std::exp(-3.0)))));
  // Saturated logits: exact, never inf or NaN.
  Matrix huge(2, 1), y(2, 1);
  huge << 200, -200;
  y << 0, 0;
  CHECK(sigmoid_binary_cross_entropy(huge, y, {}, 1.0, d) == Approx(200));
  CHECK(d.allFinite());
  CHECK(sigmoid(huge)(1, 0) >= 0);

  Rng rng(3);
  Matrix x = random_matrix(4, 3, rng, 3.0), t = Matrix::Zero(4, 3);
  t(0, 0) = t(2, 0) = t(1, 1) = t(3, 2) = 1;
  const std::vector<float> w = {1.0f, 0.3f, 2.0f};
  Matrix analytic;
  sigmoid_binary_cross_entropy(x, t, w, 1.0, analytic);
  check_gradient("logits", x, analytic, [&] {
    Matrix unused;
    return sigmoid_binary_cross_entropy(x, t, w, 1.0, unused);
  });
}

TEST_CASE("regression losses: mse and huber hand values and gradients", "[heads][gradcheck]") {
  Matrix pred(1, 3), d;
  pred << 1.0f, -2.0f, 0.5f;
  const std::vector<float> target = {0.0f, 0.0f, 0.5f};
  CHECK(regression_loss(pred, target, {}, RegressionLoss::mse, 1.0, 1.0, d) == Approx(1 + 4));
  CHECK(d(0, 1) == Approx(-4));
  // Huber, delta 1: 0.5 r^2 within, delta (|r| - delta / 2) beyond.
  CHECK(regression_loss(pred, target, {}, RegressionLoss::huber, 1.0, 1.0, d) == Approx(0.5 + 1.5));
  CHECK(d(0, 1) == Approx(-1));
  CHECK(regression_loss(pred, target, {3.0f, 1.0f, 1.0f}, RegressionLoss::mse, 1.0, 1.0, d) == Approx(3 + 4));

  Rng rng(4);
  for (RegressionLoss kind : {RegressionLoss::mse, RegressionLoss::huber}) {
    Matrix x = random_matrix(1, 6, rng, 2.0);
    const std::vector<float> y = {0.1f, -1.7f, 2.5f, 0.0f, 0.9f, -0.4f}, w = {1, 2, 1, 0.5f, 1, 1};
    Matrix analytic;
    regression_loss(x, y, w, kind, 0.7, 1.0, analytic);
    check_gradient(to_string(kind), x, analytic, [&] {
      Matrix unused;
      return regression_loss(x, y, w, kind, 0.7, 1.0, unused);
    });
  }
}

TEST_CASE("HAN gradients through the multi-label and regression heads", "[heads][gradcheck]") {
  std::vector<Document> docs = sample_docs();
  docs[0].label_set = {0, 2};
  docs[1].label_set = {1};
  docs[2].label_set = {0, 1, 2};
  docs[3].label_set = {2};
  const float targets[] = {4, 1, 2.5, 5};
  for (std::size_t i = 0; i < docs.size(); ++i) docs[i].target = targets[i];
  docs[1].weight = 2;
  const Batch batch = make_batch(Documents(docs), {0, 1, 2, 3});
  SECTION("multilabel") { check_model_gradients(initial_head(Task::multilabel, 3), LossConfig{}, batch, 3); }
  SECTION("regression, mse and huber") {
    TargetScale scale;
    scale.mean = 3;
    scale.sd = 1.5;
    LossConfig loss;
    check_model_gradients(initial_head(Task::regression, 0, scale), loss, batch, 1);
    loss.regression = RegressionLoss::huber;
    loss.huber_delta = 0.5;
    check_model_gradients(initial_head(Task::regression, 0, scale), loss, batch, 1);
  }
}

TEST_CASE("class weights: balanced is n / (classes x count), as scikit-learn, and weighs the loss", "[heads]") {
  std::vector<Document> docs(4);
  for (int i = 0; i < 4; ++i) docs[i].label = i < 3 ? 0 : 1;  // 3 x class 0, 1 x class 1
  const std::vector<std::string> labels = {"a", "b"};
  ClassWeights balanced{ClassWeights::Mode::balanced, {}};
  const std::vector<double> w = class_weights(balanced, labels, Documents(docs));
  CHECK(w[0] == Approx(4.0 / (2 * 3)));
  CHECK(w[1] == Approx(4.0 / (2 * 1)));
  CHECK(class_weights(ClassWeights{}, labels, Documents(docs)) == std::vector<double>{1, 1});
  ClassWeights given{ClassWeights::Mode::given, {{"b", 5.0}}};
  CHECK(class_weights(given, labels, Documents(docs)) == std::vector<double>{1, 5});
  ClassWeights unknown{ClassWeights::Mode::given, {{"c", 2.0}}};
  CHECK_THROWS_WITH(class_weights(unknown, labels, Documents(docs)),
                    Catch::StartsWith("loss.class_weights: \"c\" is not one of the 2 labels"));

  // The weighted loss by hand: sum over documents of weight x -log softmax(x)[y], with an
  // example weight of 3 on document 0 multiplied by its class weight.
  docs[0].weight = 3;
  for (Document& d : docs) d.sentences = {{2}};
  Documents weighted(docs);
  apply_class_weights(w, weighted);
  CHECK(weighted[0].weight == Approx(3 * 4.0 / 6));
  CHECK(weighted[3].weight == Approx(2.0));
  const Batch batch = make_batch(weighted, {0, 1, 2, 3});
  Matrix logits(2, 4), d;
  logits << 1, 0, 2, -1, 0, 1, 0.5, 1;
  double by_hand = 0;
  for (int b = 0; b < 4; ++b) {
    const double y = logits(docs[b].label, b), other = logits(1 - docs[b].label, b);
    by_hand += weighted[b].weight * (std::log(std::exp(y) + std::exp(other)) - y);
  }
  CHECK(head_loss(OutputHead{}, LossConfig{}, logits, batch, 1.0, d) == Approx(by_hand));
  Matrix unweighted;
  softmax_cross_entropy(logits, batch.labels, 1.0, unweighted);
  CHECK(d.col(3).isApprox(unweighted.col(3) * 2.0f));
}

TEST_CASE("the head is stored in the model header and read back, and a single-label model has none", "[heads]") {
  TargetScale scale;
  scale.mean = 6.5;
  scale.sd = 2.25;
  scale.seen = {1, 2, 10};
  const OutputHead reg = initial_head(Task::regression, 0, scale);
  const OutputHead back = head_from_json(head_to_json(reg), Task::regression, 0, "m.han");
  CHECK(back.scale.mean == 6.5);
  CHECK(back.scale.sd == 2.25);
  CHECK(back.scale.seen == std::vector<double>{1, 2, 10});
  const OutputHead multi = head_from_json(head_to_json(initial_head(Task::multilabel, 3)), Task::multilabel, 3, "m.han");
  CHECK(multi.thresholds == std::vector<double>{0.5, 0.5, 0.5});
  CHECK_THROWS_WITH(head_from_json(head_to_json(initial_head(Task::multilabel, 3)), Task::multilabel, 4, "m.han"),
                    Catch::Contains("m.han: model file is corrupted"));
  CHECK_THROWS_WITH(head_from_json(nullptr, Task::regression, 0, "m.han"), Catch::Contains("corrupted"));
  CHECK(head_from_json(nullptr, Task::single, 2, "m.han").task == Task::single);
  // Answers: restored numbers for regression.
  Matrix z(1, 2);
  z << 0, 1;
  const Matrix y = head_answers(reg, z);
  CHECK(y(0, 0) == Approx(6.5));
  CHECK(y(0, 1) == Approx(8.75));
  CHECK(scale.nearest_seen(5.9) == 2);
  CHECK(scale.nearest_seen(6.0) == 2);  // a tie goes to the lower
  CHECK(scale.nearest_seen(-3) == 1);
}

TEST_CASE("multi-label output biases start at the logits of the label rates", "[heads]") {
  Matrix bias = Matrix::Zero(3, 1);
  start_at_label_rates(bias, {0.5, 0.1, 0.0});
  CHECK(bias(0, 0) == Approx(0));
  CHECK(sigmoid(bias)(1, 0) == Approx(0.1));
  CHECK(sigmoid(bias)(2, 0) == Approx(1e-4));  // a rate of 0 is clamped: the logit stays finite
}
