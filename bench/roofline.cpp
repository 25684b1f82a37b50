// A roofline of this machine for han's hot kernels: the FP32 FMA peak of one core and of
// all cores (a register-only loop), then each GEMM han runs at the paper's sizes (forward
// A·B, backward Aᵀ·B and A·Bᵀ) on one thread, through libxsmm and through Eigen, and the
// word-level biGRU as training (forward + backward) and prediction (forward) run it; each
// as GFLOP/s and as a share of the one-core peak, all in the same run. Prints a markdown
// table, or one JSON object with --json (bench/bench.py reads it).
// Usage: han_bench_roofline [--json] [E H A]   (default 200 50 100)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "han/core/malloc_tuning.h"
#include "han/core/random.h"
#include "han/nn/kernels.h"
#include "han/nn/kernels/xsmm_gemm.h"
#include "han/nn/layers/gru.h"
#include "han/nn/layers/linear.h"
#include "han/nn/parameters.h"

using namespace han;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The best rate of `run` (flop per call) over rounds of about 0.2 s each.
double best_gflops(double flop, const std::function<void()>& run, int rounds = 5) {
  double best = 0;
  for (int r = 0; r < rounds; ++r) {
    int calls = 0;
    const auto t = Clock::now();
    do {
      run();
      ++calls;
    } while (seconds_since(t) < 0.2);
    best = std::max(best, flop * calls / seconds_since(t) / 1e9);
  }
  return best;
}

// Independent chains of vector FMAs, enough in flight to cover the FMA latency on both
// FMA ports of an x86 core without spilling: 16 zmm chains with AVX-512 (32 registers), 12
// ymm or xmm chains otherwise (16 registers).
#if defined(__AVX512F__)
using Vec = float __attribute__((vector_size(64)));
constexpr int kLanes = 16, kChains = 16;
#elif defined(__AVX__)
using Vec = float __attribute__((vector_size(32)));
constexpr int kLanes = 8, kChains = 12;
#else
using Vec = float __attribute__((vector_size(16)));
constexpr int kLanes = 4, kChains = 12;
#endif

float fma_loop(long iterations) {
  Vec acc[kChains];
  Vec mul, add;
  for (int i = 0; i < kLanes; ++i) {
    mul[i] = 0.999999f;
    add[i] = 1e-7f;
  }
  for (int c = 0; c < kChains; ++c)
    for (int i = 0; i < kLanes; ++i) acc[c][i] = static_cast<float>(c + i);
  for (long it = 0; it < iterations; ++it) {
    for (int c = 0; c < kChains; ++c) acc[c] = acc[c] * mul + add;
    asm volatile("" : "+x"(mul));  // keeps the loop from being folded away
  }
  float sum = 0;
  for (int c = 0; c < kChains; ++c) sum += acc[c][0];
  return sum;
}

// GFLOP/s of the FMA loop on `threads` threads at once (their sum), the best of ten rounds
// of about 60 ms: on a shared VM a round can lose a core for a moment (a bench run once
// measured two cores at one core's rate), and a peak is what the machine sustains.
double fma_peak(int threads) {
  const long iterations = 20'000'000;
  const double flop_per_thread = 2.0 * kLanes * kChains * static_cast<double>(iterations);
  double best = 0;
  std::vector<float> sinks(static_cast<std::size_t>(threads));
  for (int round = 0; round < 10; ++round) {
    std::vector<std::thread> pool;
    const auto t = Clock::now();
    for (int i = 0; i < threads; ++i) pool.emplace_back([&, i] { sinks[static_cast<std::size_t>(i)] = fma_loop(iterations); });
    for (std::thread& th : pool) th.join();
    best = std::max(best, threads * flop_per_thread / seconds_since(t) / 1e9);
  }
  if (sinks[0] == 42.0f) std::printf(" ");  // uses the results
  return best;
}

Matrix random_matrix(Index rows, Index cols, Rng& rng) {
  Matrix m(rows, cols);
  fill_uniform(m, -1, 1, rng);
  return m;
}

// One product at one shape: C (m x n) = op(A) op(B), op(A) m x k.
struct Product {
  std::string kernel, pass;
  Index m, n, k;
  bool ta, tb;
};

kernels::GemmArgs args_of(const Product& p, const Matrix& a, const Matrix& b, Matrix& c) {
  kernels::GemmArgs x;
  x.m = p.m;
  x.n = p.n;
  x.k = p.k;
  x.a = a.data();
  x.lda = a.rows();
  x.a_transposed = p.ta;
  x.b = b.data();
  x.ldb = b.rows();
  x.b_transposed = p.tb;
  x.c = c.data();
  x.ldc = c.rows();
  return x;
}

struct Row {
  std::string kernel, pass, shape;
  double gflops = 0, eigen_gflops = 0;
};

Row time_product(const Product& p, Rng& rng) {
  const Matrix a = p.ta ? random_matrix(p.k, p.m, rng) : random_matrix(p.m, p.k, rng);
  const Matrix b = p.tb ? random_matrix(p.n, p.k, rng) : random_matrix(p.k, p.n, rng);
  Matrix c(p.m, p.n);
  const kernels::GemmArgs x = args_of(p, a, b, c);
  const double flop = 2.0 * static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k);
  Row row{p.kernel, p.pass, std::to_string(p.m) + " x " + std::to_string(p.k) + " x " + std::to_string(p.n)};
  const kernels::KernelTable& eigen = active_kernels();
  row.eigen_gflops = best_gflops(flop, [&] { eigen.gemm(x); });
  if (std::strcmp(gemm_in_use(), "libxsmm") != 0) {
    row.gflops = row.eigen_gflops;
    return row;
  }
  if (!kernels::xsmm_gemm(x))  // a shape libxsmm declines runs on Eigen's in han too
    std::fprintf(stderr, "roofline: libxsmm has no kernel for %s %s (%s)\n", p.kernel.c_str(), p.pass.c_str(), row.shape.c_str());
  const FastGemm fast;  // as han runs it
  row.gflops = best_gflops(flop, [&] { gemm(x); });
  return row;
}

// The products han::gemm runs for one batch shard at the given sizes: T word positions, S
// sentences, `active` sequences in a recurrent step. (The output layer is a product of a
// few rows by the documents, left to Eigen.)
std::vector<Product> han_products(Index E, Index H, Index A) {
  const Index T = 4096, S = 256, active = 256;
  return {
      {"word input projection", "forward", 6 * H, T, E, false, false},
      {"word input projection", "backward dW", 6 * H, E, T, false, true},
      {"word input projection", "backward dX", E, T, 6 * H, true, false},
      {"recurrent step (r, z)", "forward", 2 * H, active, H, false, false},
      {"recurrent step (n)", "forward", H, active, H, false, false},
      {"recurrent step", "backward dh", H, active, 3 * H, false, false},
      {"recurrent step", "backward dU", 3 * H, H, active, false, true},  // added up step by step
      {"word attention", "forward", A, T, 2 * H, false, false},
      {"word attention", "backward dW", A, 2 * H, T, false, true},
      {"word attention", "backward dh", 2 * H, T, A, true, false},
      {"sentence input projection", "forward", 6 * H, S, 2 * H, false, false},
  };
}

struct BiGruRates {
  double training = 0, prediction = 0;
  Index tokens = 0;
};

// The word-level biGRU on a shard of 64 documents x 15 sentences of 1..35 words.
BiGruRates time_bigru(Index E, Index H, Rng& rng) {
  std::vector<Index> lengths;
  Index T = 0;
  for (int i = 0; i < 64 * 15; ++i) {
    lengths.push_back(1 + static_cast<Index>(rng.below(35)));
    T += lengths.back();
  }
  BiGruParams p = bigru_init(E, H, rng);
  BiGruParams g = zeros_like(p);
  const Matrix x = random_matrix(E, T, rng), d_out = random_matrix(2 * H, T, rng);
  BiGruCache cache;
  // Per direction: forward 2·3H·(E+H) per token; backward twice that.
  const double forward_flop = 2.0 * (2.0 * 3 * H * (E + H)) * static_cast<double>(T);
  BiGruRates r;
  r.tokens = T;
  r.training = best_gflops(3 * forward_flop, [&] {
    bigru_forward(p, x, lengths, cache);
    bigru_backward(p, cache, x, d_out, g);
  });
  // han predict looks the input projection up per word instead (the word input table):
  // this is prediction's forward pass (padded gate rows, no gates kept) on the same inputs.
  r.prediction = best_gflops(forward_flop, [&] { bigru_forward(p, x, lengths, cache, false); });
  return r;
}

// FLOP per real word token of a training step at these sizes, word level only (the
// sentence level adds a few percent): biGRU 2·(2·3H·(E+H)) and attention 2·A·2H forward,
// backward twice the forward.
double training_flop_per_token(Index E, Index H, Index A) {
  const double forward = 2.0 * (2.0 * 3 * H * (E + H)) + 2.0 * A * 2 * H;
  return 3 * forward;
}

}  // namespace

int main(int argc, char** argv) {
  han::tune_malloc_for_batches();  // as the han binary does
  bool json = false;
  std::vector<Index> sizes;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--json") == 0)
      json = true;
    else
      sizes.push_back(std::stol(argv[i]));
  }
  const Index E = sizes.size() > 0 ? sizes[0] : 200, H = sizes.size() > 1 ? sizes[1] : 50, A = sizes.size() > 2 ? sizes[2] : 100;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  Rng rng(7);
  const double peak1 = fma_peak(1), peak_all = fma_peak(static_cast<int>(cores));
  std::vector<Row> rows;
  for (const Product& p : han_products(E, H, A)) rows.push_back(time_product(p, rng));
  const BiGruRates bigru = time_bigru(E, H, rng);
  if (json) {
    std::printf("{\"E\": %ld, \"H\": %ld, \"A\": %ld, \"gemm\": \"%s\", \"kernels\": \"%s\", \"cores\": %u, "
                "\"peak_gflops_1_core\": %.1f, \"peak_gflops_all_cores\": %.1f, \"training_flop_per_token\": %.0f, "
                "\"products\": [",
                static_cast<long>(E), static_cast<long>(H), static_cast<long>(A), gemm_in_use(), active_kernels().name,
                cores, peak1, peak_all, training_flop_per_token(E, H, A));
    for (std::size_t i = 0; i < rows.size(); ++i)
      std::printf("%s{\"kernel\": \"%s\", \"pass\": \"%s\", \"shape\": \"%s\", \"gflops\": %.1f, \"eigen_gflops\": %.1f}",
                  i ? ", " : "", rows[i].kernel.c_str(), rows[i].pass.c_str(), rows[i].shape.c_str(), rows[i].gflops,
                  rows[i].eigen_gflops);
    std::printf("], \"bigru_tokens\": %ld, \"bigru_training_gflops\": %.1f, \"bigru_prediction_gflops\": %.1f}\n",
                static_cast<long>(bigru.tokens), bigru.training, bigru.prediction);
    return 0;
  }
  std::printf("FP32 FMA peak: %.1f GFLOP/s on 1 thread, %.1f on %u threads (one per logical CPU). GEMM: %s. "
              "E=%ld H=%ld A=%ld; the products on one thread.\n\n",
              peak1, peak_all, cores, gemm_in_use(), static_cast<long>(E), static_cast<long>(H), static_cast<long>(A));
  std::printf("| kernel | pass | M x K x N | GFLOP/s | %% of 1-core peak | Eigen GFLOP/s | ratio |\n|---|---|---|---:|---:|---:|---:|\n");
  for (const Row& r : rows)
    std::printf("| %s | %s | %s | %.1f | %.0f %% | %.1f | %.2f |\n", r.kernel.c_str(), r.pass.c_str(), r.shape.c_str(),
                r.gflops, 100 * r.gflops / peak1, r.eigen_gflops, r.gflops / r.eigen_gflops);
  std::printf("| word biGRU (%ld tokens) | training (forward + backward) | | %.1f | %.0f %% | | |\n",
              static_cast<long>(bigru.tokens), bigru.training, 100 * bigru.training / peak1);
  std::printf("| word biGRU (%ld tokens) | forward, no gates kept | | %.1f | %.0f %% | | |\n", static_cast<long>(bigru.tokens),
              bigru.prediction, 100 * bigru.prediction / peak1);
  std::printf("\nTraining costs about %.0f FLOP per real word token at these sizes (word level).\n",
              training_flop_per_token(E, H, A));
  return 0;
}
