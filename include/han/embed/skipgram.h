#pragma once
// Skip-gram word vectors with negative sampling (Mikolov et al. 2013), the word2vec recipe:
// frequent words subsampled (keep probability (sqrt(f/t) + 1) t/f for a word of frequency f),
// a window of random size 1..window around each word, `negative` noise words per (word,
// context) pair drawn from unigram^0.75, and a learning rate decayed linearly from lr to
// lr * 1e-4 over all epochs.
//
// Threads: the documents are split into one contiguous chunk per thread (about equal word
// counts) and every thread runs all epochs over its chunk, updating the shared vectors
// without locks ("Hogwild", as word2vec). With one thread a seed gives the same vectors
// every time; with more, the interleaving of updates differs from run to run.
#include <cstdint>
#include <functional>

#include "han/core/config.h"
#include "han/embed/skipgram_corpus.h"
#include "han/embed/word_vectors.h"

namespace han {

struct SkipGramProgress {
  double fraction = 0;          // of epochs * corpus words
  double words_per_second = 0;  // corpus words processed, all threads
  double lr = 0;
};

struct SkipGramOptions {
  int dim = 200;
  int window = 5;
  int negative = 5;
  int epochs = 5;
  double sample = 1e-4;  // 0 = no subsampling
  double lr = 0.025;
  int threads = 1;
  std::uint64_t seed = 1;
  // Called from one worker thread about every 1 % of the work.
  std::function<void(const SkipGramProgress&)> on_progress;
};

// embed.*, model.embedding_dim, trainer.threads (0 = every core) and trainer.seed.
SkipGramOptions skipgram_options(const Config& cfg);

struct SkipGramStats {
  std::int64_t words = 0;  // corpus words processed (epochs * corpus words), as word2vec counts
  std::int64_t pairs = 0;  // (word, context) pairs trained
  double seconds = 0;
  double words_per_second() const { return seconds > 0 ? static_cast<double>(words) / seconds : 0; }
};

// The input vectors of every corpus word. The corpus must have at least one word.
WordVectors train_skipgram(const SkipGramCorpus& corpus, const SkipGramOptions& options,
                           SkipGramStats* stats = nullptr);

}  // namespace han
