#include <catch2/catch.hpp>

#include <cmath>

#include "han/optimizer.h"

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
