#pragma once
// The matrix kernels the layers spend their time in: GEMM, the GRU gates, attention's
// tanh. A native build (HAN_NATIVE=ON) holds one variant, compiled for the build machine.
// A portable build holds "generic" (baseline x86-64) and, on x86-64, "avx2" (x86-64-v3) and
// "avx512" (x86-64-v4), and uses the best one the CPU runs, picked at the first call.
// HAN_CPU=<variant> forces one (a variant this build lacks or this CPU cannot run is an
// Error naming it).
//
// GEMM may run on libxsmm instead (gemm_in_use() below).
#include <cstdint>
#include <string>
#include <vector>

#include "han/core/types.h"
#include "han/nn/kernels/variant.h"

namespace han {

using MatrixView = Eigen::Ref<Matrix, 0, Eigen::OuterStride<>>;
using ConstMatrixView = Eigen::Ref<const Matrix, 0, Eigen::OuterStride<>>;

enum class Op { plain, transposed };

// c = op_a(a) op_b(b), or c += ... when accumulate.
void gemm(const ConstMatrixView& a, Op op_a, const ConstMatrixView& b, Op op_b, MatrixView c, bool accumulate = false);
// The same on raw arguments, unchecked (the overload above checks the operands' extents
// for the sanitizer build): on libxsmm under a FastGemm, else the variant's product.
// bench/roofline times it.
void gemm(const kernels::GemmArgs& x);

// The floating-point operations (2 m n k each) of every product han::gemm has run in this
// process, on any thread: what a utilisation figure divides by time and the peak.
std::uint64_t gemm_flop_count();

// One GRU step (see kernels::GruGateArgs): g (3H, a), gh_n and h_prev (H, a) in; r, z, n, h (H, a) out.
void gru_gates(const ConstMatrixView& g, const ConstMatrixView& gh_n, const ConstMatrixView& h_prev, MatrixView r,
               MatrixView z, MatrixView n, MatrixView h);

// One GRU step of prediction (see kernels::GruStepArgs).
void gru_step(const kernels::GruStepArgs& x);

// m's blocks of `block` rows, each padded to kernels::padded_hidden(block) rows with zeros:
// the layout the kernels run on whole SIMD packets.
Matrix padded_blocks(const Matrix& m, Index block);

// u = tanh(u + bias), bias (rows, 1) added to every column.
void bias_tanh(MatrixView u, const Matrix& bias);

// The GEMM of training steps: "libxsmm" (JIT-compiled small-matrix kernels, in builds with
// HAN_XSMM, for every variant but "generic"; shapes it has no kernel for fall back to the
// variant's) or "eigen" (the variant's own). HAN_GEMM=eigen|libxsmm forces one.
const char* gemm_in_use();

// GEMM runs on libxsmm only while a FastGemm lives on the calling thread: in training
// steps, and in prediction for batches of at least kFastGemmTokens real tokens. Smaller
// batches (a one-line prediction, a quiet server) run on the variant's Eigen product and
// never pay for libxsmm's set-up (it maps and locks about 10 MB: 6 ms here), which a few
// words do not earn back.
class FastGemm {
 public:
  FastGemm();
  ~FastGemm();
  FastGemm(const FastGemm&) = delete;
  FastGemm& operator=(const FastGemm&) = delete;

 private:
  bool previous_;
};

// Real tokens from which a prediction batch runs on libxsmm (FastGemm).
constexpr Index kFastGemmTokens = 4096;

// The variant in use: its name and functions (picked on the first call).
const kernels::KernelTable& active_kernels();

// The variants this build holds, comma-separated, in order of preference (last = best).
std::string kernel_variants();

// Every variant of this build that this CPU runs (tests compare them).
std::vector<kernels::KernelTable> runnable_kernels();

}  // namespace han
