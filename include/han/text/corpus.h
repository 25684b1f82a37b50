#pragma once
// The training corpus: train/dev/test splits read and encoded with a vocabulary and
// label set built from the training split only.
#include <string>
#include <vector>

#include "han/core/config.h"
#include "han/text/dataset.h"
#include "han/text/vocab.h"

namespace han {

struct Corpus {
  Vocab vocab;
  std::vector<std::string> labels;
  std::vector<Document> train, dev, test;
};

// Reads data.train (required, non-empty), data.dev and data.test (optional).
// Labels in dev/test that training never saw are errors naming the example.
// The vocabulary: words seen tokenizer.min_count times in train (most frequent first), then
// `vector_words` (words with a pretrained vector, in the order given) not already in it,
// at most tokenizer.max_vocab entries in all.
Corpus load_corpus(const Config& cfg, const std::vector<std::string>& vector_words = {});

}  // namespace han
