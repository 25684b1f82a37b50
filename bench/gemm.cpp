// Measures this CPU's single-precision GEMM throughput (Eigen, one thread) at the
// word-level GRU's shapes, and the throughput the packed biGRU itself reaches
// (forward + backward) on sentences of realistic lengths, so the GRU's speed can be
// stated as a fraction of what the machine can do. Prints one JSON object.
#include <array>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "han/nn/layers/gru.h"
#include "han/core/malloc_tuning.h"
#include "han/nn/parameters.h"
#include "han/core/random.h"

using namespace han;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

Matrix random_matrix(Index rows, Index cols, Rng& rng) {
  Matrix m(rows, cols);
  for (Index i = 0; i < m.size(); ++i) m.data()[i] = static_cast<Scalar>(rng.uniform(-1, 1));
  return m;
}

// C (m, n) = A (m, k) * B (k, n), repeated for about 2 GFLOP per timing.
struct Gemm {
  std::string name;
  Matrix a, b, c;
  double best_gflops = 0;
  Gemm(std::string n, Index m, Index k, Index cols, Rng& rng)
      : name(std::move(n)), a(random_matrix(m, k, rng)), b(random_matrix(k, cols, rng)), c(m, cols) {}
  void time_once() {
    const double flop = 2.0 * static_cast<double>(a.rows()) * static_cast<double>(a.cols()) *
                        static_cast<double>(b.cols());
    const int reps = std::max(1, static_cast<int>(2e9 / flop));
    const auto t = Clock::now();
    for (int r = 0; r < reps; ++r) c.noalias() = a * b;
    best_gflops = std::max(best_gflops, flop * reps / seconds_since(t) / 1e9);
  }
};

}  // namespace

int main(int argc, char** argv) {
  han::tune_malloc_for_batches();  // as the han binary does
  const Index E = argc > 1 ? std::stoi(argv[1]) : 200, H = argc > 2 ? std::stoi(argv[2]) : 50;
  Rng rng(7);
  // Input projection (3H x E) * (E x T), recurrent step (3H x H) * (H x active), and the
  // backward products of the same shapes.
  std::vector<Gemm> gemms;
  gemms.emplace_back("input_projection_3HxE_by_Ex4096", 3 * H, E, 4096, rng);
  gemms.emplace_back("recurrent_step_3HxH_by_Hx256", 3 * H, H, 256, rng);
  gemms.emplace_back("recurrent_step_3HxH_by_Hx64", 3 * H, H, 64, rng);
  gemms.emplace_back("weight_grad_3HxT_by_TxE", 3 * H, 4096, E, rng);

  // A batch of 64 documents x ~15 sentences with lengths like IMDB's (mean ~18 words).
  std::vector<Index> lengths;
  Index T = 0;
  for (int i = 0; i < 64 * 15; ++i) {
    const Index len = 1 + static_cast<Index>(rng.below(35));
    lengths.push_back(len);
    T += len;
  }
  BiGruParams p = bigru_init(E, H, rng);
  BiGruParams g = zeros_like(p);
  const Matrix x = random_matrix(E, T, rng), d_out = random_matrix(2 * H, T, rng);
  BiGruCache cache;
  // Per direction: forward 2*3H*(E+H)*T, backward twice that (d weights, d inputs/states).
  const double flop = 2.0 * 3.0 * (2.0 * 3 * H * (E + H)) * static_cast<double>(T);
  double best = 0, best_forward = 0;
  // Rounds alternate the GEMMs and the biGRU, so a slow spell of a shared machine hits both.
  for (int round = 0; round < 8; ++round) {
    for (Gemm& gemm : gemms) gemm.time_once();
    for (int rep = 0; rep < 3; ++rep) {
      auto t = Clock::now();
      bigru_forward(p, x, lengths, cache);
      const double fwd = seconds_since(t);
      bigru_backward(p, cache, x, d_out, g);
      const double total = seconds_since(t);
      best = std::max(best, flop / total / 1e9);
      best_forward = std::max(best_forward, flop / 3 / fwd / 1e9);
    }
  }
  std::printf("{\"E\": %ld, \"H\": %ld, \"gemm_gflops\": {", static_cast<long>(E), static_cast<long>(H));
  for (std::size_t i = 0; i < gemms.size(); ++i)
    std::printf("%s\"%s\": %.1f", i ? ", " : "", gemms[i].name.c_str(), gemms[i].best_gflops);
  std::printf("}, \"bigru_tokens\": %ld, \"bigru_gflops\": %.1f, \"bigru_forward_gflops\": %.1f, "
              "\"bigru_fraction_of_gemm\": %.3f}\n",
              static_cast<long>(T), best, best_forward, best / gemms[0].best_gflops);
  return 0;
}
