#include "han/embed/skipgram.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <utility>
#include <vector>

#include "han/core/error.h"
#include "han/core/parallel.h"
#include "han/core/random.h"
#include "han/embed/noise_sampler.h"
#include "han/embed/sgns_update.h"

namespace han {
namespace {

using Clock = std::chrono::steady_clock;

// As word2vec: each thread re-reads the shared progress (and so the learning rate) every
// 10000 corpus words, and the rate never falls below lr * 1e-4.
constexpr std::int64_t kLrUpdateWords = 10000;
constexpr double kMinLrFraction = 1e-4;

// Vectors are padded to whole 64-byte lines, so that each starts a cache line.
Index padded(int dim) { return (static_cast<Index>(dim) + 15) / 16 * 16; }

// word2vec's subsampling: a word of corpus frequency f is kept with probability
// (sqrt(f / t) + 1) * t / f (at least 1 for rare words: always kept).
std::vector<float> keep_probabilities(const SkipGramCorpus& corpus, double sample) {
  std::vector<float> keep(corpus.words.size(), 1.0f);
  if (sample <= 0) return keep;
  const double threshold = sample * static_cast<double>(corpus.tokens.size());
  for (std::size_t i = 0; i < keep.size(); ++i) {
    const double count = static_cast<double>(corpus.counts[i]);
    keep[i] = static_cast<float>((std::sqrt(count / threshold) + 1) * threshold / count);
  }
  return keep;
}

// Contiguous document ranges [first, end) with about equal word counts, one per worker
// (each takes at least one document while any is left).
std::vector<std::pair<std::size_t, std::size_t>> split_documents(const SkipGramCorpus& corpus, int parts) {
  std::vector<std::pair<std::size_t, std::size_t>> ranges;
  std::size_t first = 0;
  for (int p = 1; p <= parts; ++p) {
    const std::size_t target = corpus.tokens.size() * static_cast<std::size_t>(p) / static_cast<std::size_t>(parts);
    std::size_t end = first;
    while (end < corpus.documents() && (end == first || p == parts || corpus.document_ends[end] <= target)) ++end;
    ranges.emplace_back(first, end);
    first = end;
  }
  return ranges;
}

class SkipGramTrainer {
 public:
  SkipGramTrainer(const SkipGramCorpus& corpus, const SkipGramOptions& options);
  void run_worker(int worker, std::size_t first_document, std::size_t end_document);
  WordVectors vectors() const;
  SkipGramStats stats() const;

 private:
  // Per-thread state: the random stream, the document's kept words and the pair buffers.
  struct Worker {
    Worker(int worker, const SkipGramOptions& o, Index padded_dim)
        : id(worker),
          rng(derive_seed(o.seed, SeedStream::skipgram, static_cast<std::uint64_t>(worker) + 1)),
          noise(static_cast<std::size_t>(o.negative)),
          targets(static_cast<std::size_t>(o.negative) + 1),
          scratch(static_cast<std::size_t>(padded_dim)),
          lr(static_cast<float>(o.lr)) {}
    int id;
    Rng rng;
    std::vector<std::int32_t> kept;     // the document's words that survived subsampling
    std::vector<std::size_t> position;  // ... and where each was in the document
    std::vector<std::int32_t> noise;    // the next pair's noise words, drawn one pair ahead
    std::vector<float*> targets;
    std::vector<float> scratch;
    std::int64_t reported = 0;  // words of the current document already counted as done
    float lr;
    std::int64_t pairs = 0;
  };
  void train_document(Worker& w, std::size_t document);
  void train_center(Worker& w, std::size_t i);
  void draw_noise(Worker& w);
  void count_words(Worker& w, std::int64_t words);
  float* input(std::int32_t word) { return input_.col(word).data(); }
  float* output(std::int32_t word) { return output_.col(word).data(); }

  const SkipGramCorpus& corpus_;
  const SkipGramOptions& options_;
  const NoiseSampler noise_;
  const std::vector<float> keep_;
  const std::int64_t total_words_;  // epochs * corpus words
  // (padded dim, words), shared by the workers without locks: a deliberate race, as in
  // word2vec (Hogwild: an update now and then lost to a concurrent one does no harm).
  Matrix input_, output_;
  std::atomic<std::int64_t> words_done_{0};
  std::atomic<std::int64_t> pairs_{0};
  double next_report_ = 0.01;  // touched by worker 0 only
  const Clock::time_point start_ = Clock::now();
};

SkipGramTrainer::SkipGramTrainer(const SkipGramCorpus& corpus, const SkipGramOptions& options)
    : corpus_(corpus),
      options_(options),
      noise_(corpus.counts),
      keep_(keep_probabilities(corpus, options.sample)),
      total_words_(static_cast<std::int64_t>(corpus.tokens.size()) * options.epochs),
      input_(Matrix::Zero(padded(options.dim), static_cast<Index>(corpus.words.size()))),
      output_(Matrix::Zero(padded(options.dim), static_cast<Index>(corpus.words.size()))) {
  // word2vec's start: input vectors uniform in [-0.5, 0.5) / dim, output vectors zero.
  Rng rng(derive_seed(options.seed, SeedStream::skipgram, 0));
  for (Index w = 0; w < input_.cols(); ++w)
    for (Index d = 0; d < options.dim; ++d) input_(d, w) = static_cast<float>((rng.uniform() - 0.5) / options.dim);
}

void SkipGramTrainer::run_worker(int worker, std::size_t first_document, std::size_t end_document) {
  Worker w(worker, options_, input_.rows());
  draw_noise(w);
  for (int epoch = 0; epoch < options_.epochs; ++epoch)
    for (std::size_t d = first_document; d < end_document; ++d) train_document(w, d);
  pairs_ += w.pairs;
}

void SkipGramTrainer::train_document(Worker& w, std::size_t document) {
  const std::size_t begin = corpus_.document_begin(document), end = corpus_.document_ends[document];
  w.kept.clear();
  w.position.clear();
  for (std::size_t t = begin; t < end; ++t) {
    const std::int32_t word = corpus_.tokens[t];
    const float keep = keep_[static_cast<std::size_t>(word)];
    if (keep < 1.0f && keep < static_cast<float>(w.rng.next() >> 40) * 0x1p-24f) continue;
    w.kept.push_back(word);
    w.position.push_back(t - begin);
  }
  w.reported = 0;
  for (std::size_t i = 0; i < w.kept.size(); ++i) {
    const auto at = static_cast<std::int64_t>(w.position[i]);
    if (at - w.reported >= kLrUpdateWords) count_words(w, at - w.reported);
    train_center(w, i);
  }
  count_words(w, static_cast<std::int64_t>(end - begin) - w.reported);
}

// Every context word within a random window of 1..window words on each side of word i.
void SkipGramTrainer::train_center(Worker& w, std::size_t i) {
  const auto window = static_cast<std::uint64_t>(options_.window);
  const auto reach = static_cast<std::size_t>(window - w.rng.below(window));
  const std::size_t lo = i > reach ? i - reach : 0, hi = std::min(w.kept.size(), i + reach + 1);
  const std::int32_t center = w.kept[i];
  for (std::size_t j = lo; j < hi; ++j) {
    if (j == i) continue;
    int count = 0;
    w.targets[count++] = output(center);
    for (const std::int32_t noise : w.noise)
      if (noise != center) w.targets[count++] = output(noise);  // word2vec skips a draw of the word itself
    draw_noise(w);
    sgns_update(input(w.kept[j]), w.targets.data(), count, options_.dim, w.lr, w.scratch.data());
  }
  w.pairs += static_cast<std::int64_t>(hi - lo - 1);
}

// The next pair's noise words. Their vectors are random rows of a table larger than the
// caches: they are fetched now, while the current pair computes, so that memory latency
// overlaps arithmetic (this took a quarter off the time of a pair).
void SkipGramTrainer::draw_noise(Worker& w) {
  for (std::int32_t& noise : w.noise) {
    noise = noise_.sample(w.rng);
    const float* row = output(noise);
    for (int d = 0; d < options_.dim; d += 16) __builtin_prefetch(row + d, 1);
  }
}

// Adds `words` to the shared progress and sets the worker's learning rate from it.
void SkipGramTrainer::count_words(Worker& w, std::int64_t words) {
  w.reported += words;
  const std::int64_t done = words_done_.fetch_add(words, std::memory_order_relaxed) + words;
  const double fraction = static_cast<double>(done) / static_cast<double>(total_words_ + 1);
  w.lr = static_cast<float>(options_.lr * std::max(1.0 - fraction, kMinLrFraction));
  if (w.id != 0 || !options_.on_progress || fraction < next_report_) return;
  next_report_ = std::floor(fraction * 100 + 1) / 100;
  const double seconds = std::chrono::duration<double>(Clock::now() - start_).count();
  options_.on_progress({fraction, static_cast<double>(done) / std::max(seconds, 1e-9), w.lr});
}

WordVectors SkipGramTrainer::vectors() const {
  return {corpus_.words, input_.topRows(options_.dim)};
}

SkipGramStats SkipGramTrainer::stats() const {
  SkipGramStats s;
  s.words = words_done_.load();
  s.pairs = pairs_.load();
  s.seconds = std::chrono::duration<double>(Clock::now() - start_).count();
  return s;
}

}  // namespace

SkipGramOptions skipgram_options(const Config& cfg) {
  SkipGramOptions o;
  o.dim = cfg.model.embedding_dim;
  o.window = cfg.embed.window;
  o.negative = cfg.embed.negative;
  o.epochs = cfg.embed.epochs;
  o.sample = cfg.embed.sample;
  o.lr = cfg.embed.lr;
  o.threads = resolve_threads(cfg.trainer.threads);
  o.seed = cfg.trainer.seed;
  return o;
}

WordVectors train_skipgram(const SkipGramCorpus& corpus, const SkipGramOptions& options, SkipGramStats* stats) {
  HAN_ASSERT(!corpus.words.empty() && options.dim > 0 && options.window > 0 && options.epochs > 0);
  SkipGramTrainer trainer(corpus, options);
  const int workers = static_cast<int>(std::min<std::size_t>(std::max(options.threads, 1), corpus.documents()));
  const auto ranges = split_documents(corpus, workers);
  run_parallel(workers, [&](int w) { trainer.run_worker(w, ranges[w].first, ranges[w].second); });
  if (stats) *stats = trainer.stats();
  return trainer.vectors();
}

}  // namespace han
