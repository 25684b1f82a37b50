// The matrix kernels (nn/kernels.h): every variant this build holds and this CPU runs gives
// what plain Eigen gives, on blocks with column strides as the layers pass them.
#include <catch2/catch.hpp>

#include <string>

#include "han/core/random.h"
#include "han/nn/kernels.h"
#include "han/nn/kernels/xsmm_gemm.h"
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

// C's top m x n block = op(A) op(B) with op(A) m x k, each operand starting at its matrix's
// first element, its column stride the matrix's rows.
han::kernels::GemmArgs block_gemm_args(han::Index m, han::Index n, han::Index k, const Matrix& a, bool ta,
                                       const Matrix& b, bool tb, Matrix& c, bool accumulate) {
  han::kernels::GemmArgs x;
  x.m = m;
  x.n = n;
  x.k = k;
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

han::kernels::GemmArgs gemm_args(const Matrix& a, bool ta, const Matrix& b, bool tb, Matrix& c, bool accumulate) {
  return block_gemm_args(c.rows(), c.cols(), ta ? a.rows() : a.cols(), a, ta, b, tb, c, accumulate);
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
  const Matrix step = random_matrix(4 * H, a, rng);  // [r; z; n] pre-activations, then gh_n, in one buffer
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

TEST_CASE("kernels: every runnable variant's prediction step gathers, matches the equations and scatters", "[kernels]") {
  han::Rng rng(5);
  const han::Index H = GENERATE(3, 13, 16, 50), a = 6, words = 9;
  const han::Index P = han::kernels::padded_hidden(H);
  INFO("H = " << H);
  // The input side as bigru_prediction_table lays it out: two directions of [r; z; n], each P
  // rows, zero past H. The step reads the second direction. s = U h_prev is (3H, a), with
  // columns more to read past (two for H = 3); h_prev's rows past H hold values of no meaning.
  Matrix table = Matrix::Zero(6 * P, words), s = random_matrix(3 * H, a + 2, rng), hp = random_matrix(P, a, rng);
  Matrix b_hn = Matrix::Zero(P, 1);
  for (han::Index g = 0; g < 6; ++g) table.middleRows(g * P, H) = random_matrix(H, words, rng);
  b_hn.topRows(H) = random_matrix(H, 1, rng);
  const std::vector<std::ptrdiff_t> in_cols = {3, 8, 0, 3, 5, 1}, out_cols = {4, 0, 2, 6, 1, 3};
  for (const bool first : {false, true}) {
    // The equations, column by column.
    Matrix want = Matrix::Zero(H, a);
    for (han::Index j = 0; j < a; ++j) {
      const Eigen::ArrayXf in = table.col(in_cols[j]).segment(3 * P, 3 * P).array();
      Eigen::ArrayXf rec = Eigen::ArrayXf::Zero(3 * H), prev = Eigen::ArrayXf::Zero(H);
      if (!first) {
        rec = s.col(j).array();
        prev = hp.col(j).head(H).array();
      }
      const Eigen::ArrayXf r = 1 / (1 + (-(in.segment(0, H) + rec.segment(0, H))).exp());
      const Eigen::ArrayXf z = 1 / (1 + (-(in.segment(P, H) + rec.segment(H, H))).exp());
      const Eigen::ArrayXf n = (in.segment(2 * P, H) + r * (rec.segment(2 * H, H) + b_hn.col(0).head(H).array())).tanh();
      want.col(j) = ((1 - z) * n + z * prev).matrix();
    }
    for (const han::kernels::KernelTable& k : han::runnable_kernels()) {
      INFO(k.name << (first ? ", first step" : ""));
      Matrix h = Matrix::Constant(P, a, 7), states = Matrix::Constant(2 * H + 3, 7, 9);
      han::kernels::GruStepArgs x;
      x.hidden = H;
      x.active = a;
      x.table = table.data();
      x.ld_table = 6 * P;
      x.in_row = 3 * P;
      x.in_cols = in_cols.data();
      x.s = first ? nullptr : s.data();
      x.lds = 3 * H;
      x.b_hn = b_hn.data();
      x.h_prev = first ? nullptr : hp.data();
      x.ldh_prev = P;
      x.h = h.data();
      x.ldh = P;
      x.states = states.data();
      x.ld_states = states.rows();
      x.out_row = H;
      x.out_cols = out_cols.data();
      k.gru_step(x);
      CHECK(relative_error(h.topRows(H), want) < 1e-5);
      CHECK(h.allFinite());  // the padding rows too: they come back as h_prev
      for (han::Index j = 0; j < a; ++j) CHECK(states.col(out_cols[j]).segment(H, H) == h.col(j).head(H));
      // Rows outside this direction's, and the column no sequence writes, untouched.
      CHECK((states.topRows(H).array() == 9).all());
      CHECK((states.bottomRows(3).array() == 9).all());
      CHECK((states.col(5).array() == 9).all());
    }
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

// The libxsmm GEMM (HAN_XSMM builds): the three products han runs (A B, Aᵀ B, A Bᵀ), with
// the long dimension below, at and past whole tiles of 64, on blocks whose column stride
// exceeds their rows, as the layers pass them; and han::gemm under a FastGemm.
TEST_CASE("kernels: libxsmm's GEMM matches Eigen for A B, A^T B and A B^T, tiles and strides", "[kernels]") {
  han::Rng rng(5);
  const han::Index m = 150, k = 37;
  const han::Index len = GENERATE(1, 64, 150);  // the long dimension: n for A B and Aᵀ B, k for A Bᵀ
  for (int flags = 0; flags < 6; ++flags) {
    const bool ta = flags % 3 == 1, tb = flags % 3 == 2, accumulate = flags >= 3;
    const han::Index n = tb ? 61 : len, inner = tb ? len : k;
    INFO("len=" << len << " ta=" << ta << " tb=" << tb << " accumulate=" << accumulate);
    // Each operand is the top block of a matrix 3 rows taller.
    const Matrix a = ta ? random_matrix(inner + 3, m, rng) : random_matrix(m + 3, inner, rng);
    const Matrix b = tb ? random_matrix(n + 3, inner, rng) : random_matrix(inner + 3, n, rng);
    const Matrix start = random_matrix(m + 3, n, rng);
    Matrix c = start;
    const han::kernels::GemmArgs x = block_gemm_args(m, n, inner, a, ta, b, tb, c, accumulate);
    if (!han::kernels::xsmm_built()) {
      CHECK_FALSE(han::kernels::xsmm_gemm(x));
      continue;
    }
    REQUIRE(han::kernels::xsmm_gemm(x));
    const Matrix opa = ta ? Matrix(a.topRows(inner).transpose()) : Matrix(a.topRows(m));
    const Matrix opb = tb ? Matrix(b.topRows(n).transpose()) : Matrix(b.topRows(inner));
    const Matrix want = (accumulate ? Matrix(start.topRows(m)) : Matrix::Zero(m, n)) + opa * opb;
    CHECK(relative_error(c.topRows(m), want) < 1e-5);
    CHECK(c.bottomRows(3) == start.bottomRows(3));  // the rows past the block untouched
    c = start;
    {
      const han::FastGemm fast;
      han::gemm(x);
    }
    CHECK(relative_error(c.topRows(m), want) < 1e-5);
    CHECK(c.bottomRows(3) == start.bottomRows(3));
  }
}

TEST_CASE("kernels: libxsmm's GEMM declines what it has no kernel for, leaving C as it was", "[kernels]") {
  han::Rng rng(6);
  const Matrix a = random_matrix(5, 4, rng), b = random_matrix(6, 5, rng), start = random_matrix(4, 6, rng);
  Matrix c = start;
  han::kernels::GemmArgs x = gemm_args(a, true, b, true, c, false);  // Aᵀ Bᵀ: han runs no such product
  CHECK_FALSE(han::kernels::xsmm_gemm(x));
  x.k = 0;  // an empty inner dimension: C = 0 is the caller's
  x.a_transposed = x.b_transposed = false;
  CHECK_FALSE(han::kernels::xsmm_gemm(x));
  CHECK(c == start);
  // Through han::gemm either is still computed (by the variant's own product).
  han::gemm(a, han::Op::transposed, b, han::Op::transposed, c);
  CHECK(relative_error(c, Matrix(a.transpose() * b.transpose())) < 1e-5);
}
