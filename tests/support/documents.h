#pragma once
// Encoded documents for tests that need shapes, not meaning: random ones (1-4 sentences of
// 1-7 word ids in [2, 30)), and four fixed ones whose batch has word and sentence padding.
#include <cstdint>
#include <vector>

#include "han/core/random.h"
#include "han/text/dataset.h"
#include "han/text/encoding.h"

namespace han::test {

// A document of `label` with these sentences.
inline Document labelled_doc(std::int32_t label, std::vector<std::vector<std::int32_t>> sentences) {
  Document d;
  d.label = label;
  d.sentences = std::move(sentences);
  return d;
}

// Four documents over word ids 2..11 (labels 0, 1, 2, 1) of 3, 1, 2 and 4 sentences.
inline std::vector<Document> padded_sample_docs() {
  return {labelled_doc(0, {{2, 3, 4}, {5}, {6, 7}}), labelled_doc(1, {{8, 9, 10, 11, 2}}),
          labelled_doc(2, {{3}, {4, 5}}), labelled_doc(1, {{6, 2, 9}, {10, 11}, {3}, {7}})};
}

inline std::vector<Document> random_documents(int n, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<Document> docs(n);
  for (Document& d : docs) {
    const int sentences = 1 + static_cast<int>(rng.below(4));
    for (int s = 0; s < sentences; ++s) {
      std::vector<std::int32_t> words(1 + rng.below(7));
      for (std::int32_t& w : words) w = 2 + static_cast<std::int32_t>(rng.below(28));
      d.sentences.push_back(words);
    }
  }
  return docs;
}

}  // namespace han::test
