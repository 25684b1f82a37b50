#pragma once
// A small seeded generator (xoshiro256** seeded by splitmix64) with portable
// uniform draws and shuffles, so a seed gives the same numbers with any
// standard library (std:: distributions are implementation-defined).
#include <cstdint>
#include <vector>

namespace han {

class Rng {
 public:
  explicit Rng(std::uint64_t seed);
  std::uint64_t next();
  double uniform();                         // [0, 1)
  double uniform(double lo, double hi);     // [lo, hi)
  std::uint64_t below(std::uint64_t n);     // [0, n), n > 0
  template <class T>
  void shuffle(std::vector<T>& v) {
    for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[below(i)]);
  }

 private:
  std::uint64_t s_[4];
};

// Derives an independent stream seed from a base seed and stream labels (epoch, batch, ...).
std::uint64_t derive_seed(std::uint64_t base, std::uint64_t a, std::uint64_t b = 0);

// The random streams of a training run, each derived from trainer.seed. The values are
// part of every trained model (change one and the same seed trains another model).
enum class SeedStream : std::uint64_t {
  init = 1,         // initial parameters
  batches = 2,      // the batcher's shuffles
  dropout = 3,      // dropout masks (labelled by the optimizer step)
  dev_batches = 4,  // how dev (and ablation test) documents are batched for scoring
  skipgram = 5,     // skip-gram vectors: initial values, then each thread's draws (labelled by thread)
  linear_member = 6,  // the linear member's batch order (labelled by epoch)
};

inline std::uint64_t derive_seed(std::uint64_t base, SeedStream stream, std::uint64_t b = 0) {
  return derive_seed(base, static_cast<std::uint64_t>(stream), b);
}

}  // namespace han
