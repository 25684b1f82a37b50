#include <catch2/catch.hpp>

#include <cmath>

#include "han/nn/layers/linear.h"
#include "han/train/optimizer.h"
#include "han/core/random.h"

using namespace han;

TEST_CASE("Adam follows PyTorch's update on a known step", "[optimizer]") {
  OptimizerConfig cfg;
  cfg.lr = 0.1;
  Matrix w(1, 2), g(1, 2);
  w << 1.0f, -2.0f;
  std::vector<ParamRef> params = {{"w", &w, &g}};
  auto adam = make_optimizer(cfg);
  g << 0.5f, -3.0f;
  adam->step(params, cfg.lr);
  // First step: m_hat = g, v_hat = g^2, so the update is lr * sign(g) (up to eps).
  CHECK(w(0, 0) == Approx(0.9f).epsilon(1e-6));
  CHECK(w(0, 1) == Approx(-1.9f).epsilon(1e-6));
  g << 0.5f, -3.0f;
  adam->step(params, cfg.lr);
  CHECK(w(0, 0) == Approx(0.8f).epsilon(1e-5));
  CHECK(adam->steps() == 2);
}

TEST_CASE("SGD with momentum and weight decay", "[optimizer]") {
  OptimizerConfig cfg;
  cfg.name = OptimizerName::sgd;
  cfg.momentum = 0.5;
  cfg.weight_decay = 0.1;
  Matrix w(1, 1), g(1, 1);
  w << 2.0f;
  std::vector<ParamRef> params = {{"w", &w, &g}};
  auto sgd = make_optimizer(cfg);
  g << 1.0f;
  sgd->step(params, 0.1);  // g' = 1 + 0.2 = 1.2, v = 1.2, w = 2 - 0.12
  CHECK(w(0, 0) == Approx(1.88f));
  g << 1.0f;
  sgd->step(params, 0.1);  // g' = 1 + 0.188 = 1.188, v = 0.6 + 1.188, w = 1.88 - 0.1788
  CHECK(w(0, 0) == Approx(1.7012f));
}

TEST_CASE("global-norm clipping and the linear schedule", "[optimizer]") {
  Matrix a(1, 2), ga(1, 2), b(1, 1), gb(1, 1);
  ga << 3.0f, 0.0f;
  gb << 4.0f;
  std::vector<ParamRef> params = {{"a", &a, &ga}, {"b", &b, &gb}};
  CHECK(clip_global_norm(params, 1.0) == Approx(5.0));
  CHECK(ga(0, 0) == Approx(0.6f));
  CHECK(gb(0, 0) == Approx(0.8f));
  CHECK(clip_global_norm(params, 0.0) == Approx(1.0));  // 0 = off, still reports the norm
  gb << NAN;
  CHECK(std::isnan(clip_global_norm(params, 1.0)));
  OptimizerConfig cfg;
  cfg.lr = 1.0;
  cfg.schedule = LrSchedule::linear;
  CHECK(learning_rate(cfg, 0, 10) == Approx(1.0));
  CHECK(learning_rate(cfg, 5, 10) == Approx(0.5));
  cfg.schedule = LrSchedule::constant;
  CHECK(learning_rate(cfg, 5, 10) == Approx(1.0));
}

TEST_CASE("the optimizers and the norm give the same numbers on 1 and 3 threads", "[optimizer]") {
  // 300 x 700 = 210000 elements: four pieces, so the threads really share the work.
  Rng rng(9);
  Matrix w0(300, 700), g0(300, 700), b0(3, 1), gb0(3, 1);
  for (Matrix* m : {&w0, &g0, &b0, &gb0}) fill_uniform(*m, -1, 1, rng);
  for (OptimizerName name : {OptimizerName::adam, OptimizerName::sgd}) {
    OptimizerConfig cfg;
    cfg.name = name;
    cfg.weight_decay = 0.01;
    Matrix w1 = w0, g1 = g0, b1 = b0, gb1 = gb0, w3 = w0, g3 = g0, b3 = b0, gb3 = gb0;
    std::vector<ParamRef> one = {{"w", &w1, &g1}, {"b", &b1, &gb1}}, three = {{"w", &w3, &g3}, {"b", &b3, &gb3}};
    const double norm1 = clip_global_norm(one, 10.0, 1), norm3 = clip_global_norm(three, 10.0, 3);
    CHECK(norm1 == norm3);
    CHECK(norm1 == Approx(std::sqrt(g0.cast<double>().squaredNorm() + gb0.cast<double>().squaredNorm())));
    auto opt1 = make_optimizer(cfg, 1), opt3 = make_optimizer(cfg, 3);
    for (int step = 0; step < 2; ++step) {
      opt1->step(one, 0.01);
      opt3->step(three, 0.01);
    }
    CHECK(w1.cwiseEqual(w3).all());
    CHECK(b1.cwiseEqual(b3).all());
    CHECK((w1 - w0).cwiseAbs().maxCoeff() > 0);  // every piece moved
    CHECK((w1.rightCols(1) - w0.rightCols(1)).cwiseAbs().minCoeff() > 0);
  }
}

TEST_CASE("adamw shrinks weights by lr * weight_decay outside the adaptive step and spares biases", "[optimizer]") {
  OptimizerConfig cfg;
  cfg.name = OptimizerName::adamw;
  cfg.weight_decay = 0.1;
  Matrix w(1, 1), gw(1, 1), b(1, 1), gb(1, 1);
  w << 2.0f;
  b << 2.0f;
  gw << 0.0f;
  gb << 0.0f;
  std::vector<ParamRef> params = {{"output.W", &w, &gw}, {"output.b", &b, &gb}};
  auto opt = make_optimizer(cfg);
  opt->step(params, 0.5);  // zero gradient: only the decay moves w
  CHECK(w(0, 0) == Approx(2.0f * (1 - 0.5f * 0.1f)));
  CHECK(b(0, 0) == 2.0f);
  // With a gradient, the adaptive step is the plain Adam step (the decay is not in m or v).
  cfg.weight_decay = 0;
  Matrix w2(1, 1), g2(1, 1);
  w2 << 2.0f;
  gw << 1.0f;
  g2 << 1.0f;
  w << 2.0f;
  cfg.name = OptimizerName::adam;
  auto plain = make_optimizer(cfg);
  std::vector<ParamRef> plain_params = {{"output.W", &w2, &g2}};
  plain->step(plain_params, 0.5);
  cfg.name = OptimizerName::adamw;
  cfg.weight_decay = 0.1;
  auto decoupled = make_optimizer(cfg);
  std::vector<ParamRef> one = {{"output.W", &w, &gw}};
  decoupled->step(one, 0.5);
  CHECK(w(0, 0) == Approx(2.0f * 0.95f - (2.0f - w2(0, 0))));
  CHECK(is_bias("word_gru.fwd.b_ih"));
  CHECK(is_bias("word_attention.b"));
  CHECK_FALSE(is_bias("word_attention.ctx"));
  CHECK_FALSE(is_bias("embedding.table"));
}

TEST_CASE("a tensor's lr_scale multiplies its learning rate in every optimizer, weight decay included", "[optimizer]") {
  for (const OptimizerName name : {OptimizerName::sgd, OptimizerName::adam, OptimizerName::adamw}) {
    OptimizerConfig cfg;
    cfg.name = name;
    // Coupled decay would feed the (different) weights back into the gradient: only AdamW's.
    // (AdamW's shrink depends on the weights too, a second-order difference kept small here.)
    cfg.weight_decay = name == OptimizerName::adamw ? 0.01 : 0.0;
    Matrix a(1, 2), ga(1, 2), b(1, 2), gb(1, 2);
    a << 1.0f, -2.0f;
    b = a;
    std::vector<ParamRef> params = {{"full.W", &a, &ga}, {"scaled.W", &b, &gb, 0.25}};
    auto opt = make_optimizer(cfg);
    for (int step = 0; step < 3; ++step) {
      ga << 0.5f, -3.0f;
      gb = ga;
      opt->step(params, 0.01);
    }
    // Each step moves the scaled tensor a quarter as far: the state (m, v, velocity) comes
    // from the same gradients, and AdamW's shrink is lr * scale * weight_decay.
    INFO("optimizer " << static_cast<int>(name));
    CHECK(b(0, 0) - 1.0f == Approx((a(0, 0) - 1.0f) * 0.25f).epsilon(1e-3));
    CHECK(b(0, 1) + 2.0f == Approx((a(0, 1) + 2.0f) * 0.25f).epsilon(1e-3));
    CHECK(a(0, 0) != 1.0f);
  }
}

TEST_CASE("warm-up rises linearly, then constant, linear or cosine runs over the remaining steps", "[optimizer]") {
  OptimizerConfig cfg;
  cfg.lr = 1.0;
  cfg.warmup = 0.1;  // 10 of 100 steps
  CHECK(learning_rate(cfg, 0, 100) == Approx(0.1));
  CHECK(learning_rate(cfg, 4, 100) == Approx(0.5));
  CHECK(learning_rate(cfg, 9, 100) == Approx(1.0));
  CHECK(learning_rate(cfg, 50, 100) == Approx(1.0));
  cfg.schedule = LrSchedule::linear;
  CHECK(learning_rate(cfg, 10, 100) == Approx(1.0));
  CHECK(learning_rate(cfg, 55, 100) == Approx(0.5));
  CHECK(learning_rate(cfg, 100, 100) == Approx(0.0).margin(1e-12));
  cfg.schedule = LrSchedule::cosine;
  CHECK(learning_rate(cfg, 10, 100) == Approx(1.0));
  CHECK(learning_rate(cfg, 55, 100) == Approx(0.5));
  CHECK(learning_rate(cfg, 100, 100) == Approx(0.0).margin(1e-12));
  CHECK(learning_rate(cfg, 32, 100) > 0.5);  // cosine stays high longer than linear
  cfg.warmup = 0;
  CHECK(learning_rate(cfg, 0, 100) == Approx(1.0));
}

TEST_CASE("lazy updates visit only the listed columns: a skipped column keeps its weights and moments", "[optimizer]") {
  // Two steps: columns 0 and 1 have gradients in the first, column 1 alone in the second.
  Rng rng(4);
  Matrix w0(5, 4);
  fill_uniform(w0, -1, 1, rng);
  Matrix g_first = Matrix::Zero(5, 4), g_second = Matrix::Zero(5, 4);
  fill_uniform(g_first, -1, 1, rng);
  g_first.rightCols(2).setZero();
  g_second.col(1).setRandom();
  for (OptimizerName name : {OptimizerName::adam, OptimizerName::adamw, OptimizerName::sgd}) {
    CAPTURE(static_cast<int>(name));
    OptimizerConfig cfg;
    cfg.name = name;
    Matrix dense_w = w0, lazy_w = w0, dense_g, lazy_g;
    std::vector<std::int32_t> columns;
    std::vector<ParamRef> dense = {{"table", &dense_w, &dense_g}}, lazy = {{"table", &lazy_w, &lazy_g}};
    lazy[0].columns = &columns;
    auto dense_opt = make_optimizer(cfg), lazy_opt = make_optimizer(cfg);
    dense_g = lazy_g = g_first;
    columns = {0, 1};
    CHECK(clip_global_norm(lazy, 0) == Approx(clip_global_norm(dense, 0)));
    dense_opt->step(dense, 0.1);
    lazy_opt->step(lazy, 0.1);
    // The first step moves the same columns alike (to rounding: a column is a shorter run
    // for the vector code than the whole table).
    CHECK((lazy_w - dense_w).cwiseAbs().maxCoeff() < 1e-6f);
    dense_g = lazy_g = g_second;
    columns = {1};
    dense_opt->step(dense, 0.1);
    lazy_opt->step(lazy, 0.1);
    CHECK((lazy_w.col(1) - dense_w.col(1)).cwiseAbs().maxCoeff() < 1e-6f);
    CHECK((lazy_w.col(0) - dense_w.col(0)).cwiseAbs().maxCoeff() > 1e-4f);  // dense: column 0 moves on by its momentum
    CHECK(lazy_w.col(0) != w0.col(0));       // lazy: it moved in the first step only ...
    const Matrix after_first = lazy_w;
    dense_g = lazy_g = g_second;
    lazy_opt->step(lazy, 0.1);
    CHECK(lazy_w.col(0) == after_first.col(0));  // ... and then waits
    CHECK(lazy_w.rightCols(2) == w0.rightCols(2));
    CHECK(lazy_w.col(1) != after_first.col(1));
  }
}
