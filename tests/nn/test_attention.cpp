// Attention weights in the three mask modes, and the attention layer's gradients.
#include <catch2/catch.hpp>

#include <cmath>

#include "han/nn/layers/attention.h"
#include "han/nn/parameters.h"
#include "support/gradcheck.h"

using namespace han;
using han::test::check_gradient;
using han::test::projected;
using han::test::random_matrix;

namespace {
Matrix column(std::initializer_list<float> v) {
  Matrix m(static_cast<Index>(v.size()), 1);
  Index i = 0;
  for (float x : v) m(i++, 0) = x;
  return m;
}
}  // namespace

TEST_CASE("the masking example from the paper's padding question", "[attention]") {
  const Matrix scores = column({0.1f, 0.2f, 0, 0, 0});
  const Matrix mask = column({1, 1, 0, 0, 0});
  const Matrix none = attention_weights(scores, mask, MaskMode::none);
  const Matrix renorm = attention_weights(scores, mask, MaskMode::renorm);
  const Matrix additive = attention_weights(scores, mask, MaskMode::additive);
  const float expected_none[] = {0.20f, 0.23f, 0.19f, 0.19f, 0.19f};
  const float expected_renorm[] = {0.48f, 0.52f, 0, 0, 0};
  // To 2 decimals: the exact values are [0.2075, 0.2293, 0.1877, 0.1877, 0.1877] and
  // [0.4750, 0.5250, 0, 0, 0]; the brief quotes the first as 0.20, so allow one unit.
  for (int i = 0; i < 5; ++i) {
    CHECK(none(i, 0) == Approx(expected_none[i]).margin(0.01));
    CHECK(renorm(i, 0) == Approx(expected_renorm[i]).margin(0.0051));
  }
  CHECK(none.sum() == Approx(1.0f));
  CHECK((additive - renorm).cwiseAbs().maxCoeff() <= 1e-6f);
  CHECK(additive.col(0).tail(3).isZero(0));  // exp(-10000) underflows to exactly 0
}

TEST_CASE("a column with no real position gets zero weights, not NaN", "[attention]") {
  Matrix scores(3, 2);
  scores << 0.5f, 1, 2, -1, 3, 0;
  Matrix mask(3, 2);
  mask << 1, 0, 1, 0, 0, 0;
  for (MaskMode mode : {MaskMode::none, MaskMode::renorm, MaskMode::additive}) {
    const Matrix a = attention_weights(scores, mask, mode);
    CHECK(a.allFinite());
    CHECK(a.col(1).isZero());
    CHECK(a.col(0).sum() == Approx(1.0f));
  }
}

TEST_CASE("renorm survives a padded score far above the real ones", "[attention]") {
  Matrix scores = column({-200, -201, 500});
  Matrix mask = column({1, 1, 0});
  const Matrix a = attention_weights(scores, mask, MaskMode::renorm);
  CHECK(a.allFinite());
  CHECK(a(0, 0) + a(1, 0) == Approx(1.0f));
  CHECK(a(2, 0) == 0.0f);
}

TEST_CASE("attention layer gradients with padded positions, every mode and pooling",
          "[attention][gradcheck]") {
  Rng rng(7);
  const Index D = 6, A = 5, P = 4;
  Matrix mask(P, 4);  // lengths 3, 1, 0, 4
  mask << 1, 1, 0, 1,  //
      1, 0, 0, 1,      //
      1, 0, 0, 1,      //
      0, 0, 0, 1;
  const Index T = 8;
  for (MaskMode mode : {MaskMode::none, MaskMode::renorm, MaskMode::additive}) {
    for (Pooling pooling : {Pooling::attention, Pooling::mean}) {
      DYNAMIC_SECTION(to_string(mode) << " / " << to_string(pooling)) {
        AttentionParams p = attention_init(D, A, rng);
        p.b = random_matrix(A, 1, rng, 0.5);  // non-zero b: padded scores depend on it
        p.ctx = random_matrix(A, 1, rng);     // +-1, not +-0.1: weights far from uniform
        Matrix h = random_matrix(D, T, rng);
        const Matrix R = random_matrix(D, mask.cols(), rng, 4.0);  // +-4: b's median gradient ~0.09
        auto loss = [&] {
          AttentionCache c;
          return projected(attention_forward(p, h, mask, mode, pooling, c), R);
        };
        AttentionCache c;
        attention_forward(p, h, mask, mode, pooling, c);
        AttentionParams g = zeros_like(p);
        const Matrix dh = attention_backward(p, c, R, g);
        check_gradient("h", h, dh, loss);
        if (pooling == Pooling::attention) {
          check_gradient("W", p.W, g.W, loss);
          check_gradient("b", p.b, g.b, loss);
          check_gradient("ctx", p.ctx, g.ctx, loss);
        }
      }
    }
  }
}

TEST_CASE("with mask none, padded positions take weight from real ones", "[attention]") {
  Rng rng(3);
  AttentionParams p = attention_init(4, 3, rng);
  p.b = random_matrix(3, 1, rng);
  const Matrix h = random_matrix(4, 2, rng);
  Matrix short_mask(2, 1), long_mask(6, 1);
  short_mask << 1, 1;
  long_mask << 1, 1, 0, 0, 0, 0;
  AttentionCache c1, c2;
  const Matrix a = attention_forward(p, h, short_mask, MaskMode::none, Pooling::attention, c1);
  const Matrix b = attention_forward(p, h, long_mask, MaskMode::none, Pooling::attention, c2);
  CHECK(c2.alpha.col(0).tail(4).sum() > 0.1f);
  CHECK((a - b).cwiseAbs().maxCoeff() > 1e-3f);
  AttentionCache c3, c4;
  const Matrix x = attention_forward(p, h, short_mask, MaskMode::renorm, Pooling::attention, c3);
  const Matrix y = attention_forward(p, h, long_mask, MaskMode::renorm, Pooling::attention, c4);
  CHECK((x - y).cwiseAbs().maxCoeff() <= 1e-6f);
}

TEST_CASE("prediction-mode attention scores in tiles and keeps no inputs, with training's answer", "[attention]") {
  Rng rng(21);
  AttentionParams p = attention_init(6, 5, rng);
  p.b = random_matrix(5, 1, rng);
  // 150 positions: two whole tiles of 64 and a part one.
  std::vector<Index> lengths = {40, 0, 50, 31, 29};
  Matrix mask = Matrix::Zero(50, 5);
  Index total = 0;
  for (Index m = 0; m < 5; ++m) {
    mask.col(m).head(lengths[m]).setOnes();
    total += lengths[m];
  }
  const Matrix h = random_matrix(6, total, rng);
  for (MaskMode mode : {MaskMode::none, MaskMode::additive, MaskMode::renorm}) {
    AttentionCache train, predict;
    const Matrix a = attention_forward(p, h, mask, mode, Pooling::attention, train);
    const Matrix b = attention_forward(p, h, mask, mode, Pooling::attention, predict, false);
    CHECK((a - b).cwiseAbs().maxCoeff() <= 1e-6f);
    CHECK((train.alpha - predict.alpha).cwiseAbs().maxCoeff() <= 1e-6f);
    CHECK(train.u.cols() == total);
    CHECK((predict.u.size() == 0 && predict.h.size() == 0 && predict.mask.size() == 0));
  }
}
