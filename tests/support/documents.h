#pragma once
// Random encoded documents (1-4 sentences of 1-7 word ids in [2, 30)) for tests that
// need shapes, not meaning.
#include <cstdint>
#include <vector>

#include "han/core/random.h"
#include "han/text/dataset.h"
#include "han/text/encoding.h"

namespace han::test {

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
