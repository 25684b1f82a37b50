#pragma once
// One instruction-set variant of the matrix kernels (src/nn/kernels/variant.cpp, compiled
// once per variant with its own -march and its own name for Eigen's namespace, so the Eigen
// code of one variant can never stand in for another's at link time). The interface is
// plain pointers and sizes: no Eigen type crosses it. Column-major; ld* = column strides.
#include <cstddef>

namespace han::kernels {

// C (m x n) = op(A) op(B), plus C when accumulate. op(A) is m x k (A itself k x m when
// a_transposed), op(B) is k x n.
struct GemmArgs {
  long m = 0, n = 0, k = 0;
  const float* a = nullptr;
  long lda = 0;
  bool a_transposed = false;
  const float* b = nullptr;
  long ldb = 0;
  bool b_transposed = false;
  float* c = nullptr;
  long ldc = 0;
  bool accumulate = false;
};

// One GRU step's gates for `a` sequences of hidden size H (PyTorch's equations):
// r = σ(g_r), z = σ(g_z), n = tanh(g_n + r ∘ gh_n), h = (1 - z) ∘ n + z ∘ h_prev.
struct GruGateArgs {
  long hidden = 0, active = 0;
  const float* g = nullptr;     // (3H, a): rows [r; z; n] pre-activations (input side, r and z with U h_prev)
  long ldg = 0;
  const float* gh_n = nullptr;  // (H, a): U_n h_prev + b_hn
  long ldgh = 0;
  const float* h_prev = nullptr;  // (H, a)
  long ldh_prev = 0;
  float *r = nullptr, *z = nullptr, *n = nullptr;  // (H, a) each
  long ldr = 0, ldz = 0, ldn = 0;
  float* h = nullptr;  // (H, a)
  long ldh = 0;
};

// The GRU kernels pad each gate's H rows to whole SIMD packets of this many floats.
constexpr long kGatePacket = 16;
inline long padded_hidden(long hidden) { return (hidden + kGatePacket - 1) / kGatePacket * kGatePacket; }

// One GRU step of prediction on padded rows (P = padded_hidden(H)), gathered and scattered
// in the same pass. Sequence j reads its input side from column in_cols[j] of `table`
// (3P rows from in_row, [r; z; n] each zero past H, the r and z biases folded in) and its
// recurrent side from s = U h_prev (3H, a), rows [r; z; n]; it writes h to column j of h
// (P, a) and its H rows to column out_cols[j] of `states`, from out_row. Rows of h past H
// hold finite values of no meaning, and are read back only as such through h_prev. s must
// be readable P - H floats past its last column. At the first step s and h_prev are null
// (h_prev = 0).
struct GruStepArgs {
  long hidden = 0, active = 0;
  const float* table = nullptr;
  long ld_table = 0, in_row = 0;
  const std::ptrdiff_t* in_cols = nullptr;  // (a)
  const float* s = nullptr;                 // (3H, a) or null
  long lds = 0;
  const float* b_hn = nullptr;    // (P), zero past H
  const float* h_prev = nullptr;  // (P, a) or null; rows past H any finite values
  long ldh_prev = 0;
  float* h = nullptr;  // (P, a)
  long ldh = 0;
  float* states = nullptr;
  long ld_states = 0, out_row = 0;
  const std::ptrdiff_t* out_cols = nullptr;  // (a)
};

// u (rows x cols) = tanh(u + bias), the bias added to every column.
struct BiasTanhArgs {
  long rows = 0, cols = 0;
  float* u = nullptr;
  long ldu = 0;
  const float* bias = nullptr;
};

struct KernelTable {
  const char* name;
  void (*gemm)(const GemmArgs&);
  void (*gru_gates)(const GruGateArgs&);
  void (*gru_step)(const GruStepArgs&);
  void (*bias_tanh)(const BiasTanhArgs&);
};

// The variants; a build compiles in "native" (HAN_NATIVE=ON), or "generic" and, on x86-64,
// "avx2" (x86-64-v3) and "avx512" (x86-64-v4).
KernelTable kernels_native();
KernelTable kernels_generic();
KernelTable kernels_avx2();
KernelTable kernels_avx512();

}  // namespace han::kernels
