// Compiled once per variant (CMakeLists.txt: HAN_KERNEL_VARIANT = native, generic, avx2,
// avx512, each with its own -march). Eigen is header-only templates: were two variants to
// instantiate the same Eigen::... functions, the linker would keep one copy for both, and
// AVX2 code could end up on the generic path. Renaming Eigen's namespace per variant gives
// every instantiation here a name no other object file uses; the functions of this file
// have internal linkage; only kernels_<variant>() is visible. (scripts/check_kernel_symbols.sh
// checks the object files for any shared symbol.)
#define HAN_CAT_(a, b) a##b
#define HAN_CAT(a, b) HAN_CAT_(a, b)
#define Eigen HAN_CAT(han_eigen_, HAN_KERNEL_VARIANT)

#include <Eigen/Core>

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

void gru_gates(const GruGateArgs& x) {
  const long H = x.hidden, a = x.active;
  const ConstView g = view(x.g, 3 * H, a, x.ldg);
  const ConstView gh_n = view(x.gh_n, H, a, x.ldgh);
  const ConstView hp = view(x.h_prev, H, a, x.ldh_prev);
  View r = view(x.r, H, a, x.ldr), z = view(x.z, H, a, x.ldz), n = view(x.n, H, a, x.ldn);
  r = g.topRows(H).array().logistic();
  z = g.middleRows(H, H).array().logistic();
  n = (g.bottomRows(H).array() + r.array() * gh_n.array()).tanh();
  view(x.h, H, a, x.ldh) = (1 - z.array()) * n.array() + z.array() * hp.array();
}

void bias_tanh(const BiasTanhArgs& x) {
  View u = view(x.u, x.rows, x.cols, x.ldu);
  const Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, 1>> bias(x.bias, x.rows);
  u = (u.colwise() + bias).array().tanh();
}

}  // namespace

KernelTable HAN_CAT(kernels_, HAN_KERNEL_VARIANT)() {
#define HAN_STR_(s) #s
#define HAN_STR(s) HAN_STR_(s)
  return {HAN_STR(HAN_KERNEL_VARIANT), &gemm, &gru_gates, &bias_tanh};
}

}  // namespace han::kernels
