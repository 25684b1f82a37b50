#include "han/nn/kernels.h"

#include <cstdlib>
#include <iterator>

#include "han/core/error.h"

namespace han {
namespace {

struct Variant {
  const char* name;
  kernels::KernelTable (*table)();
  bool (*runs_here)();
};

bool always() { return true; }

// In order of preference, the best last.
#if defined(HAN_KERNELS_NATIVE)
const Variant kVariants[] = {{"native", kernels::kernels_native, always}};
#elif defined(HAN_KERNELS_X86)
// x86-64-v3 and -v4 by their defining features (clang 14, the fuzz build's compiler, knows
// no level names; LZCNT, MOVBE and F16C come with AVX2 + BMI2 on every such CPU).
bool has_v3() {
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi2");
}
bool has_v4() {
  return has_v3() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
}
const Variant kVariants[] = {
    {"generic", kernels::kernels_generic, always}, {"avx2", kernels::kernels_avx2, has_v3}, {"avx512", kernels::kernels_avx512, has_v4}};
#else
const Variant kVariants[] = {{"generic", kernels::kernels_generic, always}};
#endif

std::string runnable_variants() {
  std::string out;
  for (const Variant& v : kVariants)
    if (v.runs_here()) out += (out.empty() ? "" : ", ") + std::string(v.name);
  return out;
}

kernels::KernelTable pick_kernels() {
  const char* forced = std::getenv("HAN_CPU");
  if (!forced || !*forced) {
    for (auto v = std::rbegin(kVariants); v != std::rend(kVariants); ++v)
      if (v->runs_here()) return v->table();
  }
  const std::string name = forced ? forced : "";
  for (const Variant& v : kVariants) {
    if (name != v.name) continue;
    if (!v.runs_here())
      throw Error("HAN_CPU=" + name + ": this CPU cannot run the " + name + " kernels (it runs: " + runnable_variants() + ")");
    return v.table();
  }
  throw Error("HAN_CPU=" + name + ": not a kernel variant of this build (it has: " + kernel_variants() + ")");
}

}  // namespace

const kernels::KernelTable& active_kernels() {
  static const kernels::KernelTable table = pick_kernels();
  return table;
}

std::string kernel_variants() {
  std::string out;
  for (const Variant& v : kVariants) out += (out.empty() ? "" : ", ") + std::string(v.name);
  return out;
}

std::vector<kernels::KernelTable> runnable_kernels() {
  std::vector<kernels::KernelTable> out;
  for (const Variant& v : kVariants)
    if (v.runs_here()) out.push_back(v.table());
  return out;
}

void gemm(const ConstMatrixView& a, Op op_a, const ConstMatrixView& b, Op op_b, MatrixView c, bool accumulate) {
  kernels::GemmArgs x;
  x.m = c.rows();
  x.n = c.cols();
  x.k = op_a == Op::plain ? a.cols() : a.rows();
  HAN_ASSERT((op_a == Op::plain ? a.rows() : a.cols()) == x.m);
  HAN_ASSERT((op_b == Op::plain ? b.rows() : b.cols()) == x.k && (op_b == Op::plain ? b.cols() : b.rows()) == x.n);
  x.a = a.data();
  x.lda = a.outerStride();
  x.a_transposed = op_a == Op::transposed;
  x.b = b.data();
  x.ldb = b.outerStride();
  x.b_transposed = op_b == Op::transposed;
  x.c = c.data();
  x.ldc = c.outerStride();
  x.accumulate = accumulate;
  active_kernels().gemm(x);
}

void gru_gates(const ConstMatrixView& g, const ConstMatrixView& gh_n, const ConstMatrixView& h_prev, MatrixView r,
               MatrixView z, MatrixView n, MatrixView h) {
  kernels::GruGateArgs x;
  x.hidden = h.rows();
  x.active = h.cols();
  HAN_ASSERT(g.rows() == 3 * x.hidden && g.cols() == x.active && gh_n.cols() == x.active && h_prev.cols() == x.active);
  x.g = g.data();
  x.ldg = g.outerStride();
  x.gh_n = gh_n.data();
  x.ldgh = gh_n.outerStride();
  x.h_prev = h_prev.data();
  x.ldh_prev = h_prev.outerStride();
  x.r = r.data();
  x.ldr = r.outerStride();
  x.z = z.data();
  x.ldz = z.outerStride();
  x.n = n.data();
  x.ldn = n.outerStride();
  x.h = h.data();
  x.ldh = h.outerStride();
  active_kernels().gru_gates(x);
}

void bias_tanh(MatrixView u, const Matrix& bias) {
  HAN_ASSERT(bias.rows() == u.rows() && bias.cols() == 1);
  active_kernels().bias_tanh({u.rows(), u.cols(), u.data(), u.outerStride(), bias.data()});
}

}  // namespace han
