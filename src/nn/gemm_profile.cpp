#include "han/nn/gemm_profile.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "han/core/error.h"

namespace han {
namespace {

bool read_switch() {
  const char* value = std::getenv("HAN_GEMM_PROFILE");
  const std::string text = value ? value : "";
  if (text.empty() || text == "0") return false;
  if (text == "1") return true;
  throw Error("HAN_GEMM_PROFILE=" + text + ": expected 1 (profile han's matrix products) or 0");
}

// A long dimension (the positions a product runs over) by its order of magnitude; the
// weights' dimensions stay exact.
std::string span(long v) {
  if (v < 64) return "1-63";
  if (v < 256) return "64-255";
  if (v < 1024) return "256-1023";
  if (v < 4096) return "1024-4095";
  return ">=4096";
}

// A·B and Aᵀ·B run over N positions, A·Bᵀ (the weight gradients) over K.
struct Shape {
  long m;
  std::string k, n;
  int ops;  // 1: Aᵀ, 2: Bᵀ
  bool xsmm;
  bool operator<(const Shape& o) const { return std::tie(m, k, n, ops, xsmm) < std::tie(o.m, o.k, o.n, o.ops, o.xsmm); }
};

struct Totals {
  double seconds = 0, flop = 0;
  long calls = 0;
};

const char* operands(int ops) { return ops == 1 ? "A'B" : ops == 2 ? "AB'" : "AB"; }

class Profile {
 public:
  void add(const Shape& s, double seconds, double flop) {
    const std::lock_guard<std::mutex> lock(mutex_);
    Totals& t = totals_[s];
    t.seconds += seconds;
    t.flop += flop;
    ++t.calls;
  }
  ~Profile() { print(); }

 private:
  // Largest share first; shapes under 0.5 % of the time are summed on one line.
  void print() const {
    if (totals_.empty()) return;
    double seconds = 0, flop = 0;
    for (const auto& [shape, t] : totals_) {
      seconds += t.seconds;
      flop += t.flop;
    }
    std::vector<std::pair<Shape, Totals>> rows(totals_.begin(), totals_.end());
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.seconds > b.second.seconds; });
    std::fprintf(stderr, "han: GEMM profile (HAN_GEMM_PROFILE=1): %.3f s of products, %.1f GFLOP, %.1f GFLOP/s per thread\n",
                 seconds, flop / 1e9, flop / seconds / 1e9);
    std::fprintf(stderr, "  %6s  %8s  %8s  %5s x %-9s x %-9s  %-3s  %s\n", "share", "GFLOP/s", "calls", "M", "K", "N", "op", "GEMM");
    Totals rest;
    for (const auto& [s, t] : rows) {
      if (t.seconds < 0.005 * seconds) {
        rest.seconds += t.seconds;
        rest.flop += t.flop;
        rest.calls += t.calls;
        continue;
      }
      std::fprintf(stderr, "  %5.1f%%  %8.1f  %8ld  %5ld x %-9s x %-9s  %-3s  %s\n", 100 * t.seconds / seconds,
                   t.flop / t.seconds / 1e9, t.calls, s.m, s.k.c_str(), s.n.c_str(), operands(s.ops), s.xsmm ? "libxsmm" : "eigen");
    }
    if (rest.calls > 0)
      std::fprintf(stderr, "  %5.1f%%  %8.1f  %8ld  (every other shape)\n", 100 * rest.seconds / seconds,
                   rest.flop / rest.seconds / 1e9, rest.calls);
  }

  std::mutex mutex_;
  std::map<Shape, Totals> totals_;
};

Profile& profile() {
  static Profile p;  // printed when it is destroyed, at exit
  return p;
}

}  // namespace

bool gemm_profile_on() {
  static const bool on = read_switch();
  return on;
}

void gemm_profile_add(const kernels::GemmArgs& x, bool on_xsmm, std::int64_t nanoseconds) {
  const Shape s{x.m, x.b_transposed ? span(x.k) : std::to_string(x.k), x.b_transposed ? std::to_string(x.n) : span(x.n),
                (x.a_transposed ? 1 : 0) + (x.b_transposed ? 2 : 0), on_xsmm};
  profile().add(s, static_cast<double>(nanoseconds) * 1e-9, 2.0 * static_cast<double>(x.m) * static_cast<double>(x.n) * static_cast<double>(x.k));
}

}  // namespace han
