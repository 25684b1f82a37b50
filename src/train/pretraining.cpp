#include "han/train/pretraining.h"

#include <spdlog/spdlog.h>

#include <cmath>

#include "han/core/error.h"
#include "han/core/input_stream.h"
#include "han/core/json_text.h"
#include "han/embed/skipgram.h"
#include "han/embed/skipgram_text.h"
#include "han/train/init_model.h"

namespace han {

namespace {

// Pretraining reads data.train twice: for the vectors, then for the classifier.
void refuse_stream_train(const Config& cfg) {
  const std::string& path = cfg.data.train;
  if (path.empty() || !is_stream_path(path)) return;
  throw Error("data.train: " + quote_excerpt(path) + " is a stream (stdin, a pipe), read once, but model.embeddings "
              "\"pretrain\" reads the training data twice; save it to a file first");
}

}  // namespace

WordVectors pretrain_vectors(const Config& cfg) {
  refuse_stream_train(cfg);
  spdlog::info("pretraining word vectors (skip-gram, dim {}, window {}, {} epochs)", cfg.model.embedding_dim,
               cfg.embed.window, cfg.embed.epochs);
  const SkipGramCorpus text = read_skipgram_text(cfg);
  SkipGramOptions options = skipgram_options(cfg);
  options.on_progress = [](const SkipGramProgress& p) {
    const auto percent = static_cast<long>(std::floor(p.fraction * 100));
    if (percent % 10 == 0) spdlog::info("embed: {}%  {:.0f} words/s", percent, p.words_per_second);
  };
  SkipGramStats stats;
  WordVectors vectors = train_skipgram(text, options, &stats);
  spdlog::info("embed: {} vectors trained ({:.1f}s, {:.0f} words/s)", vectors.words.size(), stats.seconds,
               stats.words_per_second());
  return vectors;
}

Corpus load_training_corpus(const PreparedRun& run, const WordVectors* pretrained, const Classifier* parent) {
  if (parent) {
    const CorpusBase base = corpus_base(*parent, run.config);
    return load_corpus(run.config, {}, &base);
  }
  if (!pretrains_embeddings(run.config.model)) return load_corpus(run.config);
  if (pretrained) return load_corpus(run.config, pretrained->words);
  HAN_ASSERT(run.resume);
  return load_corpus(run.config, read_vector_words(run.files.vectors));
}

}  // namespace han
