#pragma once
// GEMM on libxsmm's JIT-compiled small-matrix kernels (libxsmm-dev, built with HAN_XSMM).
// han's products are small in two dimensions (3H, A, E: 50-300) and long in the third
// (the batch's positions); libxsmm generates one kernel per small shape for the CPU it
// runs on, and the long dimension is cut into tiles of 64. bench/roofline measures it
// against Eigen's product.
#include "han/nn/kernels/variant.h"

namespace han::kernels {

// True when this build has libxsmm.
bool xsmm_built();

// Makes libxsmm generate code for the named kernel variant's instruction set ("native":
// this CPU's; "avx2", "avx512"), from the first xsmm_gemm() on, which sets libxsmm up.
// Call it before any xsmm_gemm(). False for a variant libxsmm should not serve ("generic").
bool xsmm_target(const char* variant);

// C = op(A) op(B) (+ C) on libxsmm kernels. False (C untouched) when libxsmm has no
// kernel for the shape: the caller then runs its own.
bool xsmm_gemm(const GemmArgs& x);

}  // namespace han::kernels
