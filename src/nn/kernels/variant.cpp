// Compiled once per variant (CMakeLists.txt: HAN_KERNEL_VARIANT = native, generic, avx2,
// avx512, each with its own -march). Eigen is header-only templates: were two variants to
// instantiate the same Eigen::... functions, the linker would keep one copy for both, and
// AVX2 code could end up on the generic path. Renaming Eigen's namespace per variant gives
// every instantiation here a name no other object file uses; the functions of this file
// have internal linkage; only kernels_<variant>() is visible. (.ci/check_portable.sh
// checks the object files for any shared symbol.)
#define HAN_CAT_(a, b) a##b
#define HAN_CAT(a, b) HAN_CAT_(a, b)
#define Eigen HAN_CAT(han_eigen_, HAN_KERNEL_VARIANT)

#include <Eigen/Core>

#include <algorithm>

#include "han/nn/kernels/variant.h"

namespace han::kernels {
namespace {

using Dense = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic>;
using View = Eigen::Map<Dense, 0, Eigen::OuterStride<>>;
using ConstView = Eigen::Map<const Dense, 0, Eigen::OuterStride<>>;

ConstView view(const float* p, long rows, long cols, long ld) { return ConstView(p, rows, cols, Eigen::OuterStride<>(ld)); }
View view(float* p, long rows, long cols, long ld) { return View(p, rows, cols, Eigen::OuterStride<>(ld)); }

template <class A, class B>
void multiply(const A& a, const B& b, const GemmArgs& x) {
  View c = view(x.c, x.m, x.n, x.ldc);
  if (x.accumulate)
    c.noalias() += a * b;
  else
    c.noalias() = a * b;
}

void gemm(const GemmArgs& x) {
  const ConstView a = x.a_transposed ? view(x.a, x.k, x.m, x.lda) : view(x.a, x.m, x.k, x.lda);
  const ConstView b = x.b_transposed ? view(x.b, x.n, x.k, x.ldb) : view(x.b, x.k, x.n, x.ldb);
  if (x.a_transposed && x.b_transposed)
    multiply(a.transpose(), b.transpose(), x);
  else if (x.a_transposed)
    multiply(a.transpose(), b, x);
  else if (x.b_transposed)
    multiply(a, b.transpose(), x);
  else
    multiply(a, b, x);
}

using Array = Eigen::Array<float, Eigen::Dynamic, 1>;
using Column = Eigen::Map<Array>;
using ConstColumn = Eigen::Map<const Array>;

// Eigen evaluates tanh and logistic 16 (AVX-512) or 8 floats at a time, and a column's last
// H mod 16 one scalar call each: with H = 50 those calls took as long as the rest. So the
// nonlinearities run on scratch rounded up to whole packets (the padding is computed and
// dropped), one pass per column over its 3H gate rows while they are in L1.
void gru_gates(const GruGateArgs& x) {
  const long H = x.hidden, P = padded_hidden(x.hidden);
  Array scratch = Array::Zero(3 * P);  // [r; z; n], each padded to P
  Column r(scratch.data(), P), z(scratch.data() + P, P), n(scratch.data() + 2 * P, P);
  for (long j = 0; j < x.active; ++j) {
    const float* g = x.g + j * x.ldg;
    r.head(H) = ConstColumn(g, H);
    z.head(H) = ConstColumn(g + H, H);
    r = r.logistic();
    z = z.logistic();
    n.head(H) = ConstColumn(g + 2 * H, H) + r.head(H) * ConstColumn(x.gh_n + j * x.ldgh, H);
    n = n.tanh();
    Column(x.r + j * x.ldr, H) = r.head(H);
    Column(x.z + j * x.ldz, H) = z.head(H);
    Column(x.n + j * x.ldn, H) = n.head(H);
    Column(x.h + j * x.ldh, H) = (1 - z.head(H)) * n.head(H) + z.head(H) * ConstColumn(x.h_prev + j * x.ldh_prev, H);
  }
}

void prefetch(const float* p, long n) {
  for (long i = 0; i < n; i += 16) __builtin_prefetch(p + i);
  __builtin_prefetch(p + n - 1);
}

// Every operation runs on whole packets. The input side and b_hn are padded with zeros; s
// is not, so a gate's packets read past its H rows into whatever follows. Those lanes, and
// so the padding rows of h, hold finite values that never reach a real row: the product
// U h_prev reads only h_prev's first H rows, and each lane of a gate meets only the same
// lane of the others.
void gru_step(const GruStepArgs& x) {
  const long H = x.hidden, P = padded_hidden(H);
  Array scratch(3 * P);  // the gates [r; z; n], each P
  Column r(scratch.data(), P), z(scratch.data() + P, P), n(scratch.data() + 2 * P, P);
  const ConstColumn b_hn(x.b_hn, P);
  auto input_side = [&](long j) { return x.table + x.in_cols[j] * x.ld_table + x.in_row; };
  constexpr long kAhead = 4;  // columns: a word's input side lies anywhere in the table
  for (long j = 0; j < std::min(kAhead, x.active); ++j) prefetch(input_side(j), 3 * P);
  for (long j = 0; j < x.active; ++j) {
    if (j + kAhead < x.active) prefetch(input_side(j + kAhead), 3 * P);
    const float* in = input_side(j);
    Column h(x.h + j * x.ldh, P);
    if (x.s) {
      const float* s = x.s + j * x.lds;
      r = (ConstColumn(in, P) + ConstColumn(s, P)).logistic();
      z = (ConstColumn(in + P, P) + ConstColumn(s + H, P)).logistic();
      n = (ConstColumn(in + 2 * P, P) + r * (ConstColumn(s + 2 * H, P) + b_hn)).tanh();
      h = (1 - z) * n + z * ConstColumn(x.h_prev + j * x.ldh_prev, P);
    } else {
      r = ConstColumn(in, P).logistic();
      z = ConstColumn(in + P, P).logistic();
      n = (ConstColumn(in + 2 * P, P) + r * b_hn).tanh();
      h = (1 - z) * n;
    }
    Column(x.states + x.out_cols[j] * x.ld_states + x.out_row, H) = h.head(H);
  }
}

void bias_tanh(const BiasTanhArgs& x) {
  const long P = padded_hidden(x.rows);
  const ConstColumn bias(x.bias, x.rows);
  Array scratch = Array::Zero(P);
  for (long j = 0; j < x.cols; ++j) {
    Column u(x.u + j * x.ldu, x.rows);
    scratch.head(x.rows) = u + bias;
    scratch = scratch.tanh();
    u = scratch.head(x.rows);
  }
}

}  // namespace

KernelTable HAN_CAT(kernels_, HAN_KERNEL_VARIANT)() {
#define HAN_STR_(s) #s
#define HAN_STR(s) HAN_STR_(s)
  return {HAN_STR(HAN_KERNEL_VARIANT), &gemm, &gru_gates, &gru_step, &bias_tanh};
}

}  // namespace han::kernels
