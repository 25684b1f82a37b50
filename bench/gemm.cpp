// Measures this CPU's single-precision GEMM throughput (Eigen, one thread) at the
// word-level GRU's shapes, and the throughput the packed biGRU itself reaches
// (forward + backward) on sentences of realistic lengths, so the GRU's speed can be
// stated as a fraction of what the machine can do. Prints one JSON object.
#include <array>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "han/layers/gru.h"
#include "han/parameters.h"
#include "han/random.h"

using namespace han;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// GFLOP/s of C (m, n) = A (m, k) * B (k, n), best of several timed rounds.
double gemm_gflops(Index m, Index k, Index n) {
  Rng rng(1);
  Matrix a(m, k), b(k, n), c(m, n);
  for (Index i = 0; i < a.size(); ++i) a.data()[i] = static_cast<Scalar>(rng.uniform(-1, 1));
  for (Index i = 0; i < b.size(); ++i) b.data()[i] = static_cast<Scalar>(rng.uniform(-1, 1));
  const double flop = 2.0 * static_cast<double>(m) * static_cast<double>(k) * static_cast<double>(n);
  const int reps = std::max(1, static_cast<int>(2e9 / flop));
  double best = 0;
  for (int round = 0; round < 5; ++round) {
    const auto t = Clock::now();
    for (int r = 0; r < reps; ++r) c.noalias() = a * b;
    best = std::max(best, flop * reps / seconds_since(t) / 1e9);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const Index E = argc > 1 ? std::stoi(argv[1]) : 200, H = argc > 2 ? std::stoi(argv[2]) : 50;
  std::printf("{\"E\": %ld, \"H\": %ld, \"gemm_gflops\": {", static_cast<long>(E), static_cast<long>(H));
  // Input projection (3H x E) * (E x T), recurrent step (3H x H) * (H x active), and the
  // backward products of the same shapes.
  const std::vector<std::pair<std::string, std::array<Index, 3>>> shapes = {
      {"input_projection_3HxE_by_Ex4096", {3 * H, E, 4096}},
      {"recurrent_step_3HxH_by_Hx256", {3 * H, H, 256}},
      {"recurrent_step_3HxH_by_Hx64", {3 * H, H, 64}},
      {"weight_grad_3HxT_by_TxE", {3 * H, 4096, E}},
  };
  double input_proj = 0;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const auto& [name, s] = shapes[i];
    const double g = gemm_gflops(s[0], s[1], s[2]);
    if (i == 0) input_proj = g;
    std::printf("%s\"%s\": %.1f", i ? ", " : "", name.c_str(), g);
  }
  std::printf("}");

  // A batch of 64 documents x ~15 sentences with lengths like IMDB's (mean ~18 words).
  Rng rng(7);
  std::vector<Index> lengths;
  Index T = 0;
  for (int i = 0; i < 64 * 15; ++i) {
    const Index len = 1 + static_cast<Index>(rng.below(35));
    lengths.push_back(len);
    T += len;
  }
  BiGruParams p = bigru_init(E, H, rng);
  BiGruParams g = zeros_like(p);
  Matrix x(E, T), d_out(2 * H, T);
  for (Index i = 0; i < x.size(); ++i) x.data()[i] = static_cast<Scalar>(rng.uniform(-1, 1));
  for (Index i = 0; i < d_out.size(); ++i) d_out.data()[i] = static_cast<Scalar>(rng.uniform(-1, 1));
  BiGruCache cache;
  // Per direction: forward 2*3H*(E+H)*T, backward twice that (d weights, d inputs/states).
  const double flop = 2.0 * 3.0 * (2.0 * 3 * H * (E + H)) * static_cast<double>(T);
  double best = 0, best_forward = 0;
  for (int round = 0; round < 5; ++round) {
    auto t = Clock::now();
    bigru_forward(p, x, lengths, cache);
    const double fwd = seconds_since(t);
    bigru_backward(p, cache, x, d_out, g);
    const double total = seconds_since(t);
    best = std::max(best, flop / total / 1e9);
    best_forward = std::max(best_forward, flop / 3 / fwd / 1e9);
  }
  std::printf(", \"bigru_tokens\": %ld, \"bigru_gflops\": %.1f, \"bigru_forward_gflops\": %.1f, "
              "\"bigru_fraction_of_gemm\": %.3f}\n",
              static_cast<long>(T), best, best_forward, best / input_proj);
  return 0;
}
