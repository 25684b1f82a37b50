#include "han/embed/skipgram_corpus.h"

#include <algorithm>
#include <limits>

#include "han/core/error.h"

namespace han {

void SkipGramCorpusBuilder::add(const TokenizedText& document) {
  const std::size_t before = tokens_.size();
  for (const Sentence& sentence : document) {
    for (const std::string& w : sentence) {
      auto [it, inserted] = ids_.try_emplace(w, static_cast<std::int32_t>(words_.size()));
      if (inserted) {
        if (words_.size() >= static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
          throw Error("embed: more distinct words than han can number");
        words_.push_back(w);
        counts_.push_back(0);
      }
      ++counts_[static_cast<std::size_t>(it->second)];
      tokens_.push_back(it->second);
    }
  }
  if (tokens_.size() > before) document_ends_.push_back(tokens_.size());
}

SkipGramCorpus SkipGramCorpusBuilder::build(int min_count) const {
  std::vector<std::int32_t> order;
  for (std::size_t i = 0; i < words_.size(); ++i)
    if (counts_[i] >= min_count) order.push_back(static_cast<std::int32_t>(i));
  std::sort(order.begin(), order.end(), [this](std::int32_t a, std::int32_t b) {
    if (counts_[a] != counts_[b]) return counts_[a] > counts_[b];
    return words_[a] < words_[b];
  });
  SkipGramCorpus c;
  std::vector<std::int32_t> final_id(words_.size(), -1);  // provisional -> final; -1 = dropped
  for (std::size_t rank = 0; rank < order.size(); ++rank) {
    final_id[order[rank]] = static_cast<std::int32_t>(rank);
    c.words.push_back(words_[order[rank]]);
    c.counts.push_back(counts_[order[rank]]);
  }
  std::size_t begin = 0;
  for (const std::size_t end : document_ends_) {
    const std::size_t kept_before = c.tokens.size();
    for (std::size_t t = begin; t < end; ++t)
      if (final_id[tokens_[t]] >= 0) c.tokens.push_back(final_id[tokens_[t]]);
    if (c.tokens.size() > kept_before) c.document_ends.push_back(c.tokens.size());
    begin = end;
  }
  return c;
}

}  // namespace han
