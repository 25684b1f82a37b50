#include "han/embed/noise_sampler.h"

#include <algorithm>
#include <cmath>

#include "han/core/error.h"

namespace han {
namespace {

constexpr double kTwoTo32 = 4294967296.0;

}  // namespace

// Vose's construction: every bucket holds 1/n of the mass, split between its own word and
// one alias that tops it up.
NoiseSampler::NoiseSampler(const std::vector<std::int64_t>& counts, double power)
    : buckets_(counts.size()), keep_(counts.size()), alias_(counts.size()) {
  HAN_ASSERT(!counts.empty());
  const std::size_t n = counts.size();
  std::vector<double> scaled(n);
  double total = 0;
  for (std::size_t i = 0; i < n; ++i) total += scaled[i] = std::pow(static_cast<double>(counts[i]), power);
  std::vector<std::size_t> small, large;
  for (std::size_t i = 0; i < n; ++i) {
    scaled[i] *= static_cast<double>(n) / total;  // mean 1
    (scaled[i] < 1 ? small : large).push_back(i);
  }
  while (!small.empty() && !large.empty()) {
    const std::size_t s = small.back(), l = large.back();
    small.pop_back();
    keep_[s] = static_cast<std::uint32_t>(std::min(scaled[s] * kTwoTo32, kTwoTo32 - 1));
    alias_[s] = static_cast<std::int32_t>(l);
    scaled[l] -= 1 - scaled[s];
    if (scaled[l] < 1) {
      large.pop_back();
      small.push_back(l);
    }
  }
  // What is left holds (up to rounding) exactly 1: it always returns itself.
  for (const auto& rest : {small, large}) {
    for (const std::size_t i : rest) {
      keep_[i] = static_cast<std::uint32_t>(kTwoTo32 - 1);
      alias_[i] = static_cast<std::int32_t>(i);
    }
  }
}

double NoiseSampler::probability(std::int32_t word) const {
  double p = 0;
  for (std::size_t b = 0; b < buckets_; ++b) {
    const double own = keep_[b] / kTwoTo32;
    if (static_cast<std::int32_t>(b) == word) p += own;
    if (alias_[b] == word) p += 1 - own;
  }
  return p / static_cast<double>(buckets_);
}

}  // namespace han
