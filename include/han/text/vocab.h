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
  // Open addressing over words_: each slot holds an id or kEmpty, the table a power of
  // two at most half full. Keys are the stored words themselves, so building it copies
  // no string (a 40k-word model loads in about a millisecond) and a lookup allocates nothing.
  static constexpr std::int32_t kEmpty = -1;
  explicit Vocab(std::vector<std::string> words);  // builds the table; duplicates: han::Error
  // The slot holding `word`, or the empty slot where it would go.
  std::size_t slot_of(std::string_view word) const;
  // Adds words_[id]; false if the word is already there.
  bool insert(std::int32_t id);

  std::vector<std::string> words_;
  std::vector<std::int32_t> slots_;
};

// tokenizer.min_count "auto": the paper's threshold (words seen more than 5 times) unless
// the words it keeps hold less than kAutoMinCountKeep of the training tokens, as on short
// texts, where most words are rare; then the largest threshold that keeps that much, but
// never below 2: a word seen once gets an embedding fitted to one document, and with every
// training word known, <unk> would be learnt from word dropout alone.
constexpr int kAutoMinCountMost = 6;
constexpr int kAutoMinCountLeast = 2;
constexpr double kAutoMinCountKeep = 0.95;

struct MinCountChoice {
  int min_count = kAutoMinCountMost;
  double kept_fraction = 1.0;  // of the counted tokens, by the words seen >= min_count times
};

class VocabBuilder {
 public:
  void add(const TokenizedText& text);
  void add(const std::string& word, std::int64_t count) { counts_[word] += count; }
  // Words with count >= min_count, the most frequent first, at most max_size entries
  // in total (PAD and UNK included).
  Vocab build(int min_count, int max_size) const;
  std::size_t distinct_words() const { return counts_.size(); }
  // The largest min_count in [kAutoMinCountLeast, kAutoMinCountMost] whose words hold at
  // least kAutoMinCountKeep of the counted tokens; kAutoMinCountLeast when none does.
  MinCountChoice choose_min_count() const;

 private:
  std::unordered_map<std::string, std::int64_t> counts_;
};

}  // namespace han
