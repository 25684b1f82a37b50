#include "han/nn/kernels/xsmm_gemm.h"

#ifdef HAN_XSMM
#include <libxsmm.h>

#include <climits>
#include <cstring>
#include <vector>

namespace han::kernels {
namespace {

// Columns of C (or, for A·Bᵀ, of the inner dimension) per kernel call: the kernel's
// operands then stay in L1/L2, and one kernel serves every tile but the last.
constexpr long kTile = 64;

// Column-major C (m x n) = A (m x k) B (k x n), B read transposed (stored n x k) when
// trans_b, C added to when accumulate. Null when libxsmm has no kernel for it.
libxsmm_smmfunction kernel(long m, long n, long k, long lda, long ldb, long ldc, bool trans_b, bool accumulate) {
  for (long v : {m, n, k, lda, ldb, ldc})
    if (v > INT_MAX) return nullptr;  // libxsmm's sizes are int
  const libxsmm_blasint M = m, N = n, K = k, LDA = lda, LDB = ldb, LDC = ldc;
  const float alpha = 1, beta = accumulate ? 1.0f : 0.0f;
  const int flags = (trans_b ? LIBXSMM_GEMM_FLAG_TRANS_B : 0) | (accumulate ? 0 : LIBXSMM_GEMM_FLAG_BETA_0);
  // No prefetch: a kernel with prefetch (LIBXSMM_GEMM_PREFETCH in the environment) would
  // take six arguments, and it is called with three.
  const int prefetch = LIBXSMM_GEMM_PREFETCH_NONE;
  return libxsmm_smmdispatch(M, N, K, &LDA, &LDB, &LDC, &alpha, &beta, &flags, &prefetch);
}

// C = A B (+ C), A (m x k) plain, B (k x n) plain: tiles of kTile columns of B and C, on
// one kernel, and a last partial tile on a kernel of its width (generated once each, about
// 21 µs; on Eigen, these tiles would pack A again at every call).
bool plain_b(const float* a, long lda, const GemmArgs& x) {
  const long tiles = x.n / kTile, rest = x.n % kTile;
  libxsmm_smmfunction full = tiles ? kernel(x.m, kTile, x.k, lda, x.ldb, x.ldc, false, x.accumulate) : nullptr;
  libxsmm_smmfunction last = rest ? kernel(x.m, rest, x.k, lda, x.ldb, x.ldc, false, x.accumulate) : nullptr;
  if ((tiles && !full) || (rest && !last)) return false;
  for (long t = 0; t < tiles; ++t) full(a, x.b + t * kTile * x.ldb, x.c + t * kTile * x.ldc);
  if (rest) last(a, x.b + tiles * kTile * x.ldb, x.c + tiles * kTile * x.ldc);
  return true;
}

// C = A Bᵀ (+ C), A (m x k), B stored (n x k): the weight gradients, whose inner
// dimension k is the positions (a shard's, or a recurrence step's sequences). Tiles of kTile of it each add into C (the first sets C
// unless accumulating).
bool transposed_b(const float* a, long lda, const GemmArgs& x) {
  if (x.k == 0) return false;  // C = 0 (or C) is Eigen's job: no kernel has K = 0
  const long tiles = x.k / kTile, rest = x.k % kTile;
  libxsmm_smmfunction first_full = tiles ? kernel(x.m, x.n, kTile, lda, x.ldb, x.ldc, true, x.accumulate) : nullptr;
  libxsmm_smmfunction next_full = tiles > 1 ? kernel(x.m, x.n, kTile, lda, x.ldb, x.ldc, true, true) : nullptr;
  libxsmm_smmfunction last = rest ? kernel(x.m, x.n, rest, lda, x.ldb, x.ldc, true, x.accumulate || tiles > 0) : nullptr;
  if ((tiles && !first_full) || (tiles > 1 && !next_full) || (rest && !last)) return false;
  for (long t = 0; t < tiles; ++t) (t ? next_full : first_full)(a + t * kTile * lda, x.b + t * kTile * x.ldb, x.c);
  if (rest) last(a + tiles * kTile * lda, x.b + tiles * kTile * x.ldb, x.c);
  return true;
}

// Aᵀ has no kernel of its own (libxsmm 1.17 generates none for transposed A): A, a weight
// matrix in han (k x m, a few hundred by a few hundred), is transposed into scratch first.
// Callers that multiply by the same Aᵀ many times transpose it once themselves.
const float* transposed_copy(const float* a, long lda, long m, long k) {
  thread_local std::vector<float> scratch;
  scratch.resize(static_cast<std::size_t>(m * k));
  for (long i = 0; i < m; ++i)
    for (long j = 0; j < k; ++j) scratch[static_cast<std::size_t>(j * m + i)] = a[i * lda + j];
  return scratch.data();
}

// libxsmm's target ("hsw", "skx"; null: the CPU's own), set by xsmm_target().
const char* target_arch = nullptr;

// Sets libxsmm up on the first product, not at start-up: its set-up maps and locks about
// 10 MB and takes milliseconds, which commands that multiply nothing should not pay.
void set_up_once() {
  static const bool ready = [] {
    libxsmm_init();
    if (target_arch) libxsmm_set_target_arch(target_arch);
    return true;
  }();
  (void)ready;
}

}  // namespace

bool xsmm_built() { return true; }

bool xsmm_target(const char* variant) {
  if (std::strcmp(variant, "generic") == 0) return false;
  if (std::strcmp(variant, "avx2") == 0) target_arch = "hsw";
  if (std::strcmp(variant, "avx512") == 0) target_arch = "skx";
  return true;  // "native": libxsmm reads the CPU's own features
}

bool xsmm_gemm(const GemmArgs& x) {
  if (x.m == 0 || x.n == 0) return true;
  if (x.a_transposed && x.b_transposed) return false;  // han has no such product
  set_up_once();
  const float* a = x.a;
  long lda = x.lda;
  if (x.a_transposed) {
    a = transposed_copy(x.a, x.lda, x.m, x.k);
    lda = x.m;
  }
  return x.b_transposed ? transposed_b(a, lda, x) : (x.k > 0 && plain_b(a, lda, x));
}

}  // namespace han::kernels

#else

namespace han::kernels {
bool xsmm_built() { return false; }
bool xsmm_target(const char*) { return false; }
bool xsmm_gemm(const GemmArgs&) { return false; }
}  // namespace han::kernels

#endif
