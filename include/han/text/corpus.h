#pragma once
// The training corpus: train/dev/test splits read and encoded with a vocabulary and
// label set built from the training split only.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "han/core/config.h"
#include "han/text/documents.h"
#include "han/text/target_scale.h"
#include "han/text/vocab.h"

namespace han {

class MappedFile;

struct Corpus {
  Vocab vocab;
  std::vector<std::string> labels;  // none for regression
  TargetScale targets;              // regression: the training targets' scale
  Documents train, dev, test;
  int max_sentences = 0, max_words = 0;  // the caps the documents were read with ("auto" chosen)
  // The threshold the training words were counted against ("auto" chosen); with trainer.init
  // and no extend_vocab, the model's vocabulary stands instead.
  int min_count = 0;
  std::size_t train_distinct_words = 0;  // distinct words of train within the caps
  // How loading met data.cache: not set, mapped from it, read and written to it, or read
  // but the cache could not be written (a warning said why).
  enum class CacheUse { none, mapped, written, unwritten } cache = CacheUse::none;
  // The token cache's checksum when it was mapped or written (else 0): what the ranks of a
  // distributed run compare instead of every word; and the mapped file.
  std::uint64_t cache_checksum = 0;
  std::shared_ptr<const MappedFile> cache_file;
};

// A run that starts from a trained model (trainer.init) keeps that model's vocabulary, so
// every word keeps its id and embedding, and its labels when the training labels are all
// among them.
struct CorpusBase {
  std::vector<std::string> words;   // the model's vocabulary, by id
  std::vector<std::string> labels;  // the model's labels, in its order
  bool extend_vocab = false;        // append the training words it lacks (tokenizer.min_count)
};

// Multi-label: the share of the training documents that carry each label.
std::vector<double> label_rates(const Corpus& corpus);

// `cfg` with the corpus's caps and min_count in place of "auto": the config a model trained
// on it holds.
Config with_corpus_tokenizer(Config cfg, const Corpus& corpus);

// Reads data.train (required, non-empty), data.dev and data.test (optional). The caps
// ("auto" chosen on the training text, text/caps.h) apply to every split; the corpus log
// line says how much of the training text they keep.
// Labels in dev/test that training never saw are errors naming the example. Answers are
// read by model.task (dataset.h); loss.class_weights are multiplied into the training
// documents' weights.
// The vocabulary: words seen tokenizer.min_count times in train (most frequent first), then
// `vector_words` (words with a pretrained vector, in the order given) not already in it,
// at most tokenizer.max_vocab entries in all. With a `base`, its words come first instead,
// then (extend_vocab) the training words; its labels replace the training labels when they
// hold all of them.
Corpus load_corpus(const Config& cfg, const std::vector<std::string>& vector_words = {},
                   const CorpusBase* base = nullptr);

}  // namespace han
