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
Corpus load_corpus(const Config& cfg);

}  // namespace han
