#pragma once
// A profile of han::gemm for finding where the products lose the FP32 peak: with
// HAN_GEMM_PROFILE=1 in the environment, every product run under a FastGemm (training steps,
// large prediction batches) is timed, and at exit stderr gets a table of each shape's share
// of the products' time and its GFLOP/s on the thread that ran it (bench/roofline.cpp
// measures this CPU's peak). Unset or 0: off, one branch per product.
#include <cstdint>

#include "han/nn/kernels/variant.h"

namespace han {

// Whether HAN_GEMM_PROFILE asks for the profile; a han::Error for a value other than 0 or 1.
bool gemm_profile_on();

// Adds one product that took `nanoseconds` on libxsmm (`on_xsmm`) or on Eigen. Thread-safe.
void gemm_profile_add(const kernels::GemmArgs& x, bool on_xsmm, std::int64_t nanoseconds);

}  // namespace han
