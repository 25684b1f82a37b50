// The matrix kernels (nn/kernels.h): every variant this build holds and this CPU runs gives
// what plain Eigen gives, on blocks with column strides as the layers pass them.
#include <catch2/catch.hpp>

#include <string>

#include "han/core/random.h"
#include "han/nn/kernels.h"
#include "han/nn/layers/linear.h"

namespace {

using han::Matrix;

Matrix random_matrix(han::Index rows, han::Index cols, han::Rng& rng) {
  Matrix m(rows, cols);
  han::fill_uniform(m, -1, 1, rng);
  return m;
}

// Max |a - b| relative to the largest |b|.
double relative_error(const Matrix& a, const Matrix& b) {
  return (a - b).cwiseAbs().maxCoeff() / std::max<double>(1.0, b.cwiseAbs().maxCoeff());
}

han::kernels::GemmArgs gemm_args(const Matrix& a, bool ta, const Matrix& b, bool tb, Matrix& c, bool accumulate) {
  han::kernels::GemmArgs x;
  x.m = c.rows();
  x.n = c.cols();
  x.k = ta ? a.rows() : a.cols();
  x.a = a.data();
  x.lda = a.rows();
  x.a_transposed = ta;
  x.b = b.data();
  x.ldb = b.rows();
  x.b_transposed = tb;
  x.c = c.data();
  x.ldc = c.rows();
  x.accumulate = accumulate;
  return x;
}

}  // namespace

TEST_CASE("kernels: every runnable variant's GEMM matches Eigen for each transposition", "[kernels]") {
  han::Rng rng(3);
  const auto variants = han::runnable_kernels();
  REQUIRE(!variants.empty());
  for (const han::kernels::KernelTable& k : variants) {
    for (int flags = 0; flags < 8; ++flags) {
      const bool ta = flags & 1, tb = flags & 2, accumulate = flags & 4;
      INFO(k.name << " ta=" << ta << " tb=" << tb << " accumulate=" << accumulate);
      const Matrix a = ta ? random_matrix(37, 150, rng) : random_matrix(150, 37, rng);  // op(a): 150 x 37
      const Matrix b = tb ? random_matrix(61, 37, rng) : random_matrix(37, 61, rng);    // op(b): 37 x 61
      const Matrix start = random_matrix(150, 61, rng);
      Matrix c = start;
      k.gemm(gemm_args(a, ta, b, tb, c, accumulate));
      const Matrix opa = ta ? Matrix(a.transpose()) : a, opb = tb ? Matrix(b.transpose()) : b;
      const Matrix want = (accumulate ? start : Matrix::Zero(150, 61)) + opa * opb;
      CHECK(relative_error(c, want) < 1e-5);
    }
  }
}

TEST_CASE("kernels: every runnable variant's GRU gates and bias tanh match the equations", "[kernels]") {
  han::Rng rng(4);
  // Sizes below, at and above whole SIMD packets (the kernels pad each column to 16 floats).
  const han::Index H = GENERATE(13, 16, 50), a = 7;
  INFO("H = " << H);
  const Matrix step = random_matrix(4 * H, a, rng);  // [r; z; n] pre-activations, then gh_n, as gru_forward keeps them
  const Matrix hp = random_matrix(H, a, rng);
  const auto g = step.topRows(3 * H).array();
  const Matrix r = 1 / (1 + (-g.topRows(H)).exp());
  const Matrix z = 1 / (1 + (-g.middleRows(H, H)).exp());
  const Matrix n = (g.bottomRows(H) + r.array() * step.bottomRows(H).array()).tanh();
  const Matrix h = (1 - z.array()) * n.array() + z.array() * hp.array();
  const Matrix u0 = random_matrix(H + 4, 5, rng), bias = random_matrix(H + 4, 1, rng);
  const Matrix u_want = (u0.colwise() + bias.col(0)).array().tanh();
  for (const han::kernels::KernelTable& k : han::runnable_kernels()) {
    INFO(k.name);
    Matrix got_r(H, a), got_z(H, a), got_n(H, a), got_h(H, a);
    han::kernels::GruGateArgs x;
    x.hidden = H;
    x.active = a;
    x.g = step.data();
    x.ldg = 4 * H;
    x.gh_n = step.data() + 3 * H;
    x.ldgh = 4 * H;
    x.h_prev = hp.data();
    x.ldh_prev = H;
    x.r = got_r.data();
    x.z = got_z.data();
    x.n = got_n.data();
    x.ldr = x.ldz = x.ldn = H;
    x.h = got_h.data();
    x.ldh = H;
    k.gru_gates(x);
    CHECK(relative_error(got_r, r) < 1e-5);
    CHECK(relative_error(got_z, z) < 1e-5);
    CHECK(relative_error(got_n, n) < 1e-5);
    CHECK(relative_error(got_h, h) < 1e-5);
    Matrix u = u0;
    k.bias_tanh({u.rows(), u.cols(), u.data(), u.rows(), bias.data()});
    CHECK(relative_error(u, u_want) < 1e-5);
  }
}

TEST_CASE("kernels: the Eigen-facing calls take blocks with their strides", "[kernels]") {
  han::Rng rng(5);
  const Matrix a = random_matrix(30, 20, rng), b = random_matrix(20, 12, rng);
  Matrix c = Matrix::Zero(40, 12);
  han::gemm(a.topRows(20), han::Op::transposed, b.topRows(20).leftCols(5), han::Op::plain, c.middleRows(3, 20).leftCols(5));
  CHECK(relative_error(c.middleRows(3, 20).leftCols(5), a.topRows(20).transpose() * b.topRows(20).leftCols(5)) < 1e-5);
  CHECK(c.topRows(3).isZero());
  CHECK(c.bottomRows(17).isZero());
  CHECK(c.rightCols(7).isZero());
}
