#pragma once
// The words of each document that the vocabulary does not hold (they read as <unk>), kept
// for the linear member's character n-grams (nn/char_grams.h), which are what a model of
// short texts learns most from on words it never saw in training. One entry per <unk>
// token, in reading order; each distinct word is stored once.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace han {

class UnknownWords;

// One document's unknown words, in order.
class UnknownWordList {
 public:
  UnknownWordList() = default;
  UnknownWordList(const UnknownWords* words, std::uint64_t first, std::uint64_t end)
      : words_(words), first_(first), end_(end) {}
  std::size_t size() const { return static_cast<std::size_t>(end_ - first_); }
  bool empty() const { return end_ == first_; }
  std::string_view operator[](std::size_t i) const;

 private:
  const UnknownWords* words_ = nullptr;
  std::uint64_t first_ = 0, end_ = 0;
};

class UnknownWords {
 public:
  // Adds a word to the document being built; end_document() closes it.
  void add(std::string_view word);
  void end_document();
  std::size_t documents() const { return starts_.size() - 1; }
  // Keeps the first n documents.
  void truncate(std::size_t n);
  UnknownWordList of(std::size_t document) const { return {this, starts_[document], starts_[document + 1]}; }
  std::string_view word(std::uint32_t id) const { return words_[id]; }
  std::uint32_t id_at(std::uint64_t entry) const { return ids_[entry]; }
  std::size_t bytes() const;

  // The flat arrays (a token cache stores them): per document where its entries start
  // (documents + 1), each entry's word, and the distinct words.
  const std::vector<std::uint64_t>& starts() const { return starts_; }
  const std::vector<std::uint32_t>& ids() const { return ids_; }
  const std::vector<std::string>& distinct() const { return words_; }
  // From those arrays, checked: han::Error naming `origin` when they do not fit together.
  static UnknownWords from_arrays(std::vector<std::uint64_t> starts, std::vector<std::uint32_t> ids,
                                  std::vector<std::string> distinct, const std::string& origin);

 private:
  std::vector<std::uint64_t> starts_{0};
  std::vector<std::uint32_t> ids_;
  std::vector<std::string> words_;
  std::unordered_map<std::string, std::uint32_t> index_;  // word -> id, while adding
  bool indexed_ = true;  // whether index_ holds every word
  std::string key_;       // add()'s lookup key
};

inline std::string_view UnknownWordList::operator[](std::size_t i) const { return words_->word(words_->id_at(first_ + i)); }

}  // namespace han
