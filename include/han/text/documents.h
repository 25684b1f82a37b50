#pragma once
// A list of encoded documents in flat arrays: every word id of the list in one array
// (16-bit when the vocabulary allows, else 32-bit), the start of each sentence in that
// array, the first sentence of each document, and one array per answer (label, label set,
// target, weight), and each document's shape. No heap object per document or sentence, so
// memory follows the tokens: about 2-4 bytes per word plus 8 per sentence and some 40 per
// document (its answers, start and shape).
// The word arrays are either owned or borrowed from a mapped token cache (token_cache.h);
// the answers are always owned (class weights rescale the weights after loading).
// docs[i] gives a view of document i, valid while the list lives and is not appended to.
// The list holds each document as read; its caps (the tokenizer's max_sentences and
// max_words) shape the view the HAN reads, `sentences`, and the shapes batches are planned
// from. `whole` sees every word (the linear member's view).
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <vector>

#include "han/core/types.h"
#include "han/text/dataset.h"
#include "han/text/unknown_words.h"

namespace han {

// 16-bit ids hold vocabularies up to this size (ids 0 .. 65535).
constexpr std::size_t kMaxNarrowVocab = std::size_t{1} << 16;

// The word ids of one sentence, read as int32 whatever their stored width.
class WordIds {
 public:
  class iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = std::int32_t;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = std::int32_t;
    iterator(const WordIds* ids, std::size_t i) : ids_(ids), i_(i) {}
    std::int32_t operator*() const { return (*ids_)[i_]; }
    iterator& operator++() { ++i_; return *this; }
    bool operator==(const iterator& o) const { return i_ == o.i_; }
    bool operator!=(const iterator& o) const { return i_ != o.i_; }
   private:
    const WordIds* ids_;
    std::size_t i_;
  };

  WordIds(const void* data, std::size_t size, bool narrow) : data_(data), size_(size), narrow_(narrow) {}
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::int32_t operator[](std::size_t i) const {
    return narrow_ ? static_cast<const std::uint16_t*>(data_)[i] : static_cast<const std::int32_t*>(data_)[i];
  }
  iterator begin() const { return {this, 0}; }
  iterator end() const { return {this, size_}; }

 private:
  const void* data_;
  std::size_t size_;
  bool narrow_;
};

// A run of int32 values (a document's label set).
struct IdRange {
  const std::int32_t* first = nullptr;
  std::size_t count = 0;
  const std::int32_t* begin() const { return first; }
  const std::int32_t* end() const { return first + count; }
  std::size_t size() const { return count; }
  bool empty() const { return count == 0; }
};

class Documents;

// How much of each document the HAN reads: its first `sentences` sentences, each to its
// first `words` words; 0 = no limit.
struct Caps {
  int sentences = 0;
  int words = 0;
  bool operator==(const Caps& o) const { return sentences == o.sentences && words == o.words; }
};

// The sentences of one document, each cut to `max_words` words (0: not cut).
class SentenceList {
 public:
  class iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = WordIds;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = WordIds;
    iterator(const SentenceList* list, std::size_t s) : list_(list), s_(s) {}
    WordIds operator*() const { return (*list_)[s_]; }
    iterator& operator++() { ++s_; return *this; }
    bool operator==(const iterator& o) const { return s_ == o.s_; }
    bool operator!=(const iterator& o) const { return s_ != o.s_; }
   private:
    const SentenceList* list_;
    std::size_t s_;
  };
  SentenceList(const Documents* docs, std::uint64_t first, std::uint64_t end, std::uint64_t max_words = 0)
      : docs_(docs), first_(first), end_(end), max_words_(max_words) {}
  std::size_t size() const { return static_cast<std::size_t>(end_ - first_); }
  bool empty() const { return end_ == first_; }
  WordIds operator[](std::size_t s) const;
  iterator begin() const { return {this, 0}; }
  iterator end() const { return {this, size()}; }
  // A copy as nested vectors (for tests and messages).
  std::vector<std::vector<std::int32_t>> ids() const;

 private:
  const Documents* docs_;
  std::uint64_t first_, end_;  // sentence numbers in the list
  std::uint64_t max_words_;
};

struct DocumentView {
  std::int32_t label = -1;
  IdRange label_set;
  float target = 0;
  float weight = 1;
  SentenceList sentences;  // within the list's caps: what the HAN reads
  SentenceList whole;      // every sentence and word
  UnknownWordList unknown;  // its words read as <unk>, when the list keeps them (in reading order)
  std::int64_t tokens() const;  // within the caps
};

// A document's size within the caps, kept apart from its words: what planning batches reads, so that a
// rank of a distributed run reads the words of its own share alone.
struct DocumentShape {
  std::uint32_t sentences = 0;
  std::uint32_t longest = 0;  // words in its longest sentence
  std::uint64_t tokens = 0;
};

// The raw arrays of a list's words, for writing and mapping a token cache.
struct WordArrays {
  const void* words = nullptr;  // uint16 when narrow, else int32
  bool narrow = false;
  std::uint64_t word_count = 0;
  const std::uint64_t* sentence_starts = nullptr;  // sentence_count + 1 entries
  std::uint64_t sentence_count = 0;
  const std::uint64_t* document_starts = nullptr;  // documents + 1 entries, into sentences
};

// The answers of every document, in arrays parallel to the documents.
struct Answers {
  std::vector<std::int32_t> labels;
  std::vector<float> targets, weights;
  std::vector<std::uint64_t> label_set_starts{0};  // documents + 1 entries
  std::vector<std::int32_t> label_set_ids;
};

class Documents {
 public:
  class iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = DocumentView;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = DocumentView;
    iterator(const Documents* docs, std::size_t i) : docs_(docs), i_(i) {}
    DocumentView operator*() const { return (*docs_)[i_]; }
    iterator& operator++() { ++i_; return *this; }
    bool operator==(const iterator& o) const { return i_ == o.i_; }
    bool operator!=(const iterator& o) const { return i_ != o.i_; }
   private:
    const Documents* docs_;
    std::size_t i_;
  };

  // Empty; `vocab_size` chooses the width of the ids appended (16-bit when it allows).
  explicit Documents(std::size_t vocab_size = kMaxNarrowVocab + 1);
  explicit Documents(const std::vector<Document>& docs);
  // Borrows the word arrays of a mapping (`keep` holds it alive); the answers are taken.
  Documents(const WordArrays& words, Answers answers, std::shared_ptr<const void> keep, Caps caps);

  Documents(const Documents&);
  Documents& operator=(const Documents&);
  Documents(Documents&&) noexcept;
  Documents& operator=(Documents&&) noexcept;

  void push_back(const Document& doc);
  // Appends sentences of already-mapped ids (each id < the vocabulary size given).
  void add_sentence(const std::int32_t* ids, std::size_t count);
  // From now on, keeps each document's words that read as <unk> (text/unknown_words.h);
  // only on an empty list. Appending then gives them: add_unknown_word, Document::unknown_words.
  void keep_unknown_words();
  bool keeps_unknown_words() const { return keep_unknown_; }
  // A word of the document being added that reads as <unk>, in reading order.
  void add_unknown_word(std::string_view word);
  // The kept unknown words of every document (null when not kept), and setting them (a
  // token cache's, for as many documents as the list holds).
  const UnknownWords* unknown_words() const { return keep_unknown_ ? &unknown_ : nullptr; }
  void set_unknown_words(UnknownWords words);
  // Closes the document whose sentences were added since the last one, with its answers.
  void end_document(std::int32_t label, const std::vector<std::int32_t>& label_set, float target, float weight);

  // Room for this many more words, sentences and documents: appending them then never
  // copies the arrays (nor holds two copies in memory while growing).
  void reserve(std::uint64_t words, std::uint64_t sentences, std::size_t documents);
  // Keeps the first n documents.
  void truncate(std::size_t n);
  // The caps of every view from now on (the shapes follow them).
  void set_caps(Caps caps);
  Caps caps() const { return caps_; }

  std::size_t size() const { return answers_.labels.size(); }
  bool empty() const { return size() == 0; }
  DocumentView operator[](std::size_t i) const;
  const DocumentShape& shape(std::size_t i) const { return shapes_[i]; }
  iterator begin() const { return {this, 0}; }
  iterator end() const { return {this, size()}; }

  // Every word held (the HAN reads those within the caps: the shapes' tokens).
  std::int64_t total_tokens() const { return static_cast<std::int64_t>(words_.word_count); }
  void set_weight(std::size_t i, float weight) { answers_.weights[i] = weight; }
  const WordArrays& word_arrays() const { return words_; }
  const Answers& answers() const { return answers_; }
  // Bytes of the arrays (owned or mapped): the corpus's memory.
  std::size_t bytes() const;

 private:
  friend class SentenceList;
  WordIds sentence(std::uint64_t s, std::uint64_t max_words = 0) const;
  void point_at_owned();
  DocumentShape measure(std::size_t i) const;
  std::uint64_t capped_end(std::size_t i) const;

  std::vector<std::uint16_t> narrow_words_;
  std::vector<std::int32_t> wide_words_;
  std::vector<std::uint64_t> sentence_starts_{0};
  std::vector<std::uint64_t> document_starts_{0};
  std::shared_ptr<const void> mapping_;  // non-null when the word arrays are borrowed
  WordArrays words_;
  Answers answers_;
  bool keep_unknown_ = false;
  UnknownWords unknown_;
  std::vector<DocumentShape> shapes_;  // one per document, owned even when the words are mapped
  Caps caps_;
};

// 0, 1, ..., docs.size() - 1: every document of docs, in order.
std::vector<Index> every_document(const Documents& docs);

}  // namespace han
