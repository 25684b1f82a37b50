#pragma once
// Negative sampling's noise distribution: word i drawn with probability proportional to
// count_i^0.75 (Mikolov et al. 2013). word2vec fills a table of 1e8 word ids; Walker's alias
// method draws from the exact distribution in O(1) with two arrays of the vocabulary's size.
#include <cstdint>
#include <vector>

#include "han/core/random.h"

namespace han {

class NoiseSampler {
 public:
  explicit NoiseSampler(const std::vector<std::int64_t>& counts, double power = 0.75);

  // One word id: a bucket chosen uniformly, then its own word or its alias.
  std::int32_t sample(Rng& rng) const {
    const std::uint64_t r = rng.next();
    const auto bucket = static_cast<std::size_t>(((r >> 32) * buckets_) >> 32);
    return static_cast<std::uint32_t>(r) < keep_[bucket] ? static_cast<std::int32_t>(bucket) : alias_[bucket];
  }
  // The probability sample() gives word i (for tests).
  double probability(std::int32_t i) const;

 private:
  std::uint64_t buckets_;
  std::vector<std::uint32_t> keep_;   // bucket i returns i when the low 32 random bits are below this
  std::vector<std::int32_t> alias_;   // ... and alias_[i] otherwise
};

}  // namespace han
