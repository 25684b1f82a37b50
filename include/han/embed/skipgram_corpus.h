#pragma once
// The text skip-gram learns from, as word ids: every document's words one after another,
// with the document ends kept so that no context window crosses from one document into
// the next. Words rarer than the minimum count are dropped before windows are formed (as
// word2vec does), so a window spans the words that remain.
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "han/text/tokenizer.h"

namespace han {

struct SkipGramCorpus {
  std::vector<std::string> words;     // by id: the most frequent first, ties by bytes
  std::vector<std::int64_t> counts;   // occurrences of each word
  std::vector<std::int32_t> tokens;   // every document's word ids, one document after another
  std::vector<std::size_t> document_ends;  // document d is tokens[document_ends[d-1], document_ends[d])

  std::size_t documents() const { return document_ends.size(); }
  std::size_t document_begin(std::size_t d) const { return d == 0 ? 0 : document_ends[d - 1]; }
};

// Collects tokenized documents (one pass: words get provisional ids as they come), then
// orders the vocabulary by count and keeps the words seen at least min_count times.
class SkipGramCorpusBuilder {
 public:
  void add(const TokenizedText& document);  // a document without words is skipped
  SkipGramCorpus build(int min_count) const;
  std::size_t documents() const { return document_ends_.size(); }

 private:
  std::unordered_map<std::string, std::int32_t> ids_;
  std::vector<std::string> words_;
  std::vector<std::int64_t> counts_;
  std::vector<std::int32_t> tokens_;
  std::vector<std::size_t> document_ends_;
};

}  // namespace han
