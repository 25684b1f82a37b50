#include "han/nn/kernels.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <string>

#include "han/core/error.h"
#include "han/nn/gemm_profile.h"
#include "han/nn/kernels/xsmm_gemm.h"

// Under AddressSanitizer the kernel variants are built uninstrumented (CMakeLists.txt), so the
// operands' extents are checked here, before each call.
#if defined(__SANITIZE_ADDRESS__)
#define HAN_CHECK_KERNEL_OPERANDS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HAN_CHECK_KERNEL_OPERANDS 1
#endif
#endif
#ifdef HAN_CHECK_KERNEL_OPERANDS
#include <sanitizer/asan_interface.h>

#include <cstdio>
#endif

namespace han {
namespace {

// Every byte a kernel may touch of a column-major view: columns 0..cols-1, rows 0..rows-1 of
// each, ld apart. Under ASan a poisoned byte (out of bounds, freed) is reported as ASan would
// report the access, and the process aborts; otherwise this is nothing.
template <class View>
void require_addressable([[maybe_unused]] const View& v, [[maybe_unused]] const char* operand) {
#ifdef HAN_CHECK_KERNEL_OPERANDS
  if (v.rows() == 0 || v.cols() == 0) return;
  const auto* first = reinterpret_cast<const char*>(v.data());
  for (Index j = 0; j < v.cols(); ++j) {
    void* column = const_cast<char*>(first + sizeof(float) * static_cast<std::size_t>(j * v.outerStride()));
    if (void* bad = __asan_region_is_poisoned(column, sizeof(float) * static_cast<std::size_t>(v.rows()))) {
      std::fprintf(stderr, "han: kernel operand %s (%ld x %ld, stride %ld) is not addressable at %p\n", operand,
                   static_cast<long>(v.rows()), static_cast<long>(v.cols()), static_cast<long>(v.outerStride()), bad);
      __asan_describe_address(bad);
      std::abort();
    }
  }
#endif
}

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

// libxsmm's GEMM when this build has it and the variant in use is not "generic"; the
// variant's Eigen product otherwise, or with HAN_GEMM=eigen.
bool pick_xsmm() {
  const char* forced = std::getenv("HAN_GEMM");
  const std::string name = forced ? forced : "";
  if (name == "eigen") return false;
  if (!name.empty() && name != "libxsmm") throw Error("HAN_GEMM=" + name + ": not a GEMM of han (it has: libxsmm, eigen)");
  if (!kernels::xsmm_built()) {
    if (!name.empty()) throw Error("HAN_GEMM=libxsmm: this build has no libxsmm (it was built with HAN_XSMM=OFF)");
    return false;
  }
  const bool targeted = kernels::xsmm_target(active_kernels().name);
  if (!targeted && !name.empty())
    throw Error(std::string("HAN_GEMM=libxsmm: not with the ") + active_kernels().name + " kernels");
  return targeted;
}

bool use_xsmm() {
  static const bool on = pick_xsmm();
  return on;
}

thread_local bool fast_gemm_here = false;

}  // namespace

FastGemm::FastGemm() : previous_(fast_gemm_here) { fast_gemm_here = true; }
FastGemm::~FastGemm() { fast_gemm_here = previous_; }

const char* gemm_in_use() { return use_xsmm() ? "libxsmm" : "eigen"; }

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
  require_addressable(a, "gemm a");
  require_addressable(b, "gemm b");
  require_addressable(c, "gemm c");
  gemm(x);
}

namespace {
std::atomic<std::uint64_t> gemm_flops{0};
}  // namespace

std::uint64_t gemm_flop_count() { return gemm_flops.load(std::memory_order_relaxed); }

namespace {

// han::gemm under HAN_GEMM_PROFILE=1 (nn/gemm_profile.h): timed, products under a FastGemm only.
void profiled_gemm(const kernels::GemmArgs& x) {
  const auto start = std::chrono::steady_clock::now();
  const bool on_xsmm = fast_gemm_here && use_xsmm() && kernels::xsmm_gemm(x);
  if (!on_xsmm) active_kernels().gemm(x);
  if (fast_gemm_here)
    gemm_profile_add(x, on_xsmm, std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
}

}  // namespace

void gemm(const kernels::GemmArgs& x) {
  gemm_flops.fetch_add(2 * static_cast<std::uint64_t>(x.m) * static_cast<std::uint64_t>(x.n) * static_cast<std::uint64_t>(x.k),
                       std::memory_order_relaxed);
  if (gemm_profile_on()) return profiled_gemm(x);
  if (fast_gemm_here && use_xsmm() && kernels::xsmm_gemm(x)) return;
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
  require_addressable(g, "gru_gates g");
  require_addressable(gh_n.topRows(x.hidden), "gru_gates gh_n");
  require_addressable(h_prev.topRows(x.hidden), "gru_gates h_prev");
  for (const MatrixView* out : {&r, &z, &n, &h}) require_addressable(*out, "gru_gates output");
  active_kernels().gru_gates(x);
}

void gru_step(const kernels::GruStepArgs& x) {
#ifdef HAN_CHECK_KERNEL_OPERANDS
  using Block = Eigen::Map<const Matrix, 0, Eigen::OuterStride<>>;
  const Index P = kernels::padded_hidden(x.hidden), a = x.active;
  if (x.s && a > 0) {
    require_addressable(Block(x.s, 3 * x.hidden, a, Eigen::OuterStride<>(x.lds)), "gru_step s");
    require_addressable(Block(x.s + (a - 1) * x.lds + 2 * x.hidden, P, 1, Eigen::OuterStride<>(P)), "gru_step s's last packets");
  }
  if (x.h_prev) require_addressable(Block(x.h_prev, P, a, Eigen::OuterStride<>(x.ldh_prev)), "gru_step h_prev");
  require_addressable(Block(x.h, P, a, Eigen::OuterStride<>(x.ldh)), "gru_step h");
  for (Index j = 0; j < a; ++j) {
    require_addressable(Block(x.table + x.in_cols[j] * x.ld_table + x.in_row, 3 * P, 1, Eigen::OuterStride<>(3 * P)),
                        "gru_step input side");
    require_addressable(Block(x.states + x.out_cols[j] * x.ld_states + x.out_row, x.hidden, 1,
                              Eigen::OuterStride<>(x.hidden)),
                        "gru_step states");
  }
#endif
  active_kernels().gru_step(x);
}

Matrix padded_blocks(const Matrix& m, Index block) {
  HAN_ASSERT(block > 0 && m.rows() % block == 0);
  const Index P = kernels::padded_hidden(block), blocks = m.rows() / block;
  Matrix out = Matrix::Zero(blocks * P, m.cols());
  for (Index b = 0; b < blocks; ++b) out.middleRows(b * P, block) = m.middleRows(b * block, block);
  return out;
}

void bias_tanh(MatrixView u, const Matrix& bias) {
  HAN_ASSERT(bias.rows() == u.rows() && bias.cols() == 1);
  require_addressable(u, "bias_tanh u");
  require_addressable(bias, "bias_tanh bias");
  active_kernels().bias_tanh({u.rows(), u.cols(), u.data(), u.outerStride(), bias.data()});
}

}  // namespace han
