#pragma once
// Word <-> id. PAD = 0, UNK = 1, then words by count (descending), ties by bytes.
// Built from the training split only.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "han/core/tensor_view.h"
#include "han/text/tokenizer.h"

namespace han {

class Vocab {
 public:
  static constexpr std::int32_t kPad = 0;
  static constexpr std::int32_t kUnk = 1;

  Vocab();  // PAD and UNK only
  // From a stored word list (index = id); validates the PAD/UNK entries and uniqueness.
  static Vocab from_words(std::vector<std::string> words);

  // A vocabulary as a model file stores it (Stored), used where it lies: nothing is built.
  // Opening it checks its three arrays whole against the file's checksums (TensorView;
  // about 1 MB for 50 000 words), so a lookup per token reads them with no check of its
  // own. A value out of range is a han::Error naming `origin` as a corrupted model file.
  struct Stored {
    TensorView text;     // the words' bytes, joined by '\n', in 4-byte elements
    TensorView offsets;  // (V + 1): where each word starts in text, as u32; then text's length
    TensorView slots;    // the lookup table (slots()), as i32
  };
  static Vocab in_place(Stored stored, std::string origin);
  // This vocabulary as Stored would hold it (for the model file): text, offsets and slots.
  std::string joined() const;
  std::vector<std::uint32_t> offsets() const;
  const std::vector<std::int32_t>& slots() const { return slots_; }
  // The model file a stored vocabulary lies in (for errors); empty for one in memory.
  const std::string& origin() const { return origin_; }

  std::int32_t id(std::string_view word) const;  // kUnk if unknown
  std::string_view word(std::int32_t id) const;
  std::size_t size() const { return size_; }
  std::vector<std::string> words() const;

 private:
  // Open addressing over the words: each slot holds an id or kEmpty, the table a power of
  // two at most half full, probed from XXH3-64 of the word (stable, so a stored table is
  // looked up as it was built). Keys are the stored words themselves, so building it copies
  // no string and a lookup allocates nothing.
  static constexpr std::int32_t kEmpty = -1;
  explicit Vocab(std::vector<std::string> words);  // builds the table; duplicates: han::Error
  // The slot holding `word`, or the empty slot where it would go.
  std::size_t slot_of(std::string_view word) const;
  std::int32_t slot(std::size_t i) const;
  std::size_t slot_count() const { return stored_ ? static_cast<std::size_t>(stored_->slots.cols()) : slots_.size(); }
  // Adds words_[id]; false if the word is already there.
  bool insert(std::int32_t id);
  [[noreturn]] void corrupted() const;

  std::size_t size_ = 0;
  std::vector<std::string> words_;  // empty when stored
  std::vector<std::int32_t> slots_;
  std::shared_ptr<const Stored> stored_;
  // stored_'s arrays, checked when opened (in_place); null when in memory.
  const char* text_ = nullptr;
  const char* offsets_ = nullptr;
  const char* stored_slots_ = nullptr;
  std::string origin_;
};

// The words of a vocabulary's joined() text (one string, '\n' between words).
std::vector<std::string> split_joined(const std::string& joined);

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
