// The packed GRU against a naive one-sequence-at-a-time GRU, and gradients.
#include <catch2/catch.hpp>

#include <optional>

#include "han/nn/kernels.h"
#include "han/nn/kernels/variant.h"
#include "han/nn/layers/gru.h"
#include "han/nn/parameters.h"
#include "support/gradcheck.h"

using namespace han;
using han::test::check_gradient;
using han::test::projected;
using han::test::random_matrix;

namespace {

// Textbook GRU over one sequence (columns of x), written independently of the packed one.
Matrix naive_gru(const GruParams& p, const Matrix& x, bool reverse) {
  const Index H = p.hidden(), L = x.cols();
  Vector h = Vector::Zero(H);
  Matrix out(H, L);
  auto sigmoid = [](float v) { return 1.0f / (1.0f + std::exp(-v)); };
  for (Index k = 0; k < L; ++k) {
    const Index t = reverse ? L - 1 - k : k;
    const Vector gx = p.W * x.col(t) + p.b_ih.col(0);
    const Vector gh = p.U * h + p.b_hh.col(0);
    Vector next(H);
    for (Index i = 0; i < H; ++i) {
      const float r = sigmoid(gx(i) + gh(i));
      const float z = sigmoid(gx(H + i) + gh(H + i));
      const float n = std::tanh(gx(2 * H + i) + r * gh(2 * H + i));
      next(i) = (1 - z) * n + z * h(i);
    }
    h = next;
    out.col(t) = h;
  }
  return out;
}

}  // namespace

TEST_CASE("packing sorts by length and visits only real positions", "[gru]") {
  const Packing pk = make_packing({2, 0, 3, 1});
  CHECK(pk.total == 6);
  REQUIRE(pk.steps() == 3);
  CHECK(pk.active == std::vector<Index>{3, 2, 1});
  // flat columns: seq0 = {0,1}, seq2 = {2,3,4}, seq3 = {5}
  CHECK(pk.forward_source == std::vector<Index>{2, 0, 5, 3, 1, 4});
  CHECK(pk.backward_source == std::vector<Index>{4, 1, 5, 3, 0, 2});
}

TEST_CASE("packed biGRU equals a naive GRU run on each sequence alone", "[gru]") {
  Rng rng(11);
  const Index D = 5, H = 4;
  const BiGruParams p = bigru_init(D, H, rng);
  const std::vector<Index> lengths = {3, 7, 1, 0, 5, 7, 2};
  Index T = 0;
  for (Index l : lengths) T += l;
  const Matrix x = random_matrix(D, T, rng);
  BiGruCache c;
  const Matrix out = bigru_forward(p, x, lengths, c);
  REQUIRE(out.rows() == 2 * H);
  REQUIRE(out.cols() == T);
  Index start = 0;
  for (Index len : lengths) {
    if (len == 0) continue;
    const Matrix seq = x.middleCols(start, len);
    CHECK((out.middleCols(start, len).topRows(H) - naive_gru(p.fwd, seq, false)).cwiseAbs().maxCoeff() <= 1e-5f);
    CHECK((out.middleCols(start, len).bottomRows(H) - naive_gru(p.bwd, seq, true)).cwiseAbs().maxCoeff() <= 1e-5f);
    start += len;
  }
}

TEST_CASE("biGRU gradients for parameters and inputs over mixed lengths", "[gru][gradcheck]") {
  Rng rng(5);
  const Index D = 4, H = 3;
  BiGruParams p = bigru_init(D, H, rng);
  const std::vector<Index> lengths = {4, 0, 2, 5, 1};
  Matrix x = random_matrix(D, 12, rng);
  const Matrix R = random_matrix(2 * H, 12, rng, 4.0);  // +-4: U's median gradient ~0.08, not 0.02
  auto loss = [&] {
    BiGruCache c;
    return projected(bigru_forward(p, x, lengths, c), R);
  };
  BiGruCache c;
  bigru_forward(p, x, lengths, c);
  BiGruParams g = zeros_like(p);
  const Matrix dx = bigru_backward(p, c, x, R, g);
  check_gradient("x", x, dx, loss, 48);
  std::vector<ParamRef> refs = zip_params(p, g);
  for (ParamRef& r : refs) check_gradient(r.name, *r.value, *r.grad, loss);
}

TEST_CASE("biGRU gradients when flat columns share inputs (a batch's distinct words)", "[gru][gradcheck]") {
  Rng rng(6);
  const Index D = 4, H = 3;
  BiGruParams p = bigru_init(D, H, rng);
  const std::vector<Index> lengths = {4, 0, 2, 5, 1};
  // 12 flat columns read 5 input columns, some several times, one in both directions' order.
  const std::vector<Index> input_of = {0, 1, 0, 2, 3, 3, 1, 4, 0, 2, 1, 0};
  Matrix x = random_matrix(D, 5, rng);
  Matrix flat(D, 12);
  for (Index t = 0; t < 12; ++t) flat.col(t) = x.col(input_of[static_cast<std::size_t>(t)]);
  const Matrix R = random_matrix(2 * H, 12, rng, 4.0);
  auto loss = [&] {
    BiGruCache c;
    c.input_of = input_of;
    return projected(bigru_forward(p, x, lengths, c), R);
  };
  BiGruCache c, flat_cache;
  c.input_of = input_of;
  // The states of the same inputs laid out flat, one column each.
  CHECK((bigru_forward(p, x, lengths, c) - bigru_forward(p, flat, lengths, flat_cache)).cwiseAbs().maxCoeff() <= 1e-6f);
  BiGruParams g = zeros_like(p);
  const Matrix dx = bigru_backward(p, c, x, R, g);
  REQUIRE(dx.cols() == 5);
  check_gradient("x", x, dx, loss, 20);
  std::vector<ParamRef> refs = zip_params(p, g);
  for (ParamRef& r : refs) check_gradient(r.name, *r.value, *r.grad, loss);
  // Prediction reads the shared inputs the same way.
  BiGruCache predict;
  predict.input_of = input_of;
  CHECK((bigru_forward(p, x, lengths, predict, false) - bigru_forward(p, flat, lengths, flat_cache)).cwiseAbs().maxCoeff() <=
        1e-6f);
}

TEST_CASE("the prediction-mode biGRU (no gate history, padded rows) gives the training-mode states", "[gru]") {
  Rng rng(13);
  const BiGruParams p = bigru_init(6, 5, rng);
  const std::vector<Index> lengths = {4, 9, 0, 2, 9};
  const Matrix x = random_matrix(6, 24, rng);
  BiGruCache train_cache, predict_cache;
  const Matrix a = bigru_forward(p, x, lengths, train_cache, true);
  const Matrix b = bigru_forward(p, x, lengths, predict_cache, false);
  // Prediction multiplies by U in one product, training by its r, z and n rows in two, and
  // prediction adds the input side after the product: the sums round apart by a few ulps.
  INFO("max diff " << (a - b).cwiseAbs().maxCoeff());
  CHECK((a - b).cwiseAbs().maxCoeff() <= 1e-6f);
  CHECK(predict_cache.fwd.r.size() == 0);
  CHECK(predict_cache.fwd.h.rows() == kernels::padded_hidden(5));
}

TEST_CASE("prediction-mode biGRU with padded rows, fewer sequences each step, on either GEMM", "[gru]") {
  Rng rng(14);
  // H = 3 and 5: gate packets read past the rows and past the last column of each step's
  // product; sequences drop out at every step, so columns the step does not write are read.
  for (const Index H : {3, 5}) {
    const BiGruParams p = bigru_init(4, H, rng);
    const std::vector<Index> lengths = {5, 4, 2, 1, 7, 3};
    const Matrix x = random_matrix(4, 22, rng);
    BiGruCache train_cache;
    const Matrix want = bigru_forward(p, x, lengths, train_cache, true);
    for (const bool fast : {false, true}) {
      INFO("H = " << H << (fast ? ", libxsmm where built" : ", Eigen"));
      std::optional<FastGemm> fast_gemm;
      if (fast) fast_gemm.emplace();
      BiGruCache c;
      const Matrix got = bigru_forward(p, x, lengths, c, false);
      CHECK((got - want).cwiseAbs().maxCoeff() <= 1e-5f);
      CHECK(c.fwd.h.allFinite());
      CHECK(c.bwd.h.allFinite());
    }
  }
}
