#pragma once
// Word <-> id. PAD = 0, UNK = 1, then words by count (descending), ties by bytes.
// Built from the training split only.
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "han/text/tokenizer.h"

namespace han {

class Vocab {
 public:
  static constexpr std::int32_t kPad = 0;
  static constexpr std::int32_t kUnk = 1;

  Vocab();  // PAD and UNK only
  // From a stored word list (index = id); validates the PAD/UNK entries and uniqueness.
  static Vocab from_words(std::vector<std::string> words);

  std::int32_t id(std::string_view word) const;  // kUnk if unknown
  const std::string& word(std::int32_t id) const;
  std::size_t size() const { return words_.size(); }
  const std::vector<std::string>& words() const { return words_; }

 private:
  std::vector<std::string> words_;
  std::unordered_map<std::string, std::int32_t> ids_;
};

class VocabBuilder {
 public:
  void add(const TokenizedText& text);
  // Words with count >= min_count, the most frequent first, at most max_size entries
  // in total (PAD and UNK included).
  Vocab build(int min_count, int max_size) const;
  std::size_t distinct_words() const { return counts_.size(); }

 private:
  std::unordered_map<std::string, std::int64_t> counts_;
};

}  // namespace han
