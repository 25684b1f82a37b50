#pragma once
// Examples (text and answers) to documents of word and label ids.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "han/text/dataset.h"
#include "han/text/documents.h"

namespace han {

// The distinct labels of examples seen one at a time, or of their label sets, numbered in
// order of first appearance. More than kMaxLabels is an error naming the example that
// brings one too many.
class LabelCollector {
 public:
  void add(const Example& example);  // its label, or every label of its set
  std::int32_t id(const Example& example, const std::string& label);  // adds it when new
  // Sorted: the class order of a model.
  std::vector<std::string> sorted() const;
  const std::vector<std::string>& first_seen() const { return labels_; }

 private:
  std::unordered_map<std::string, std::int32_t> ids_;
  std::vector<std::string> labels_;  // by number
};

std::vector<std::string> collect_labels(const std::vector<Example>& examples);

// A label's index in a model's label list; -1 when it is not there.
class LabelIndex {
 public:
  // `owner` says whose labels they are, in messages: "the model's", "the training data's".
  explicit LabelIndex(const std::vector<std::string>& labels, std::string owner = "the model's");
  std::int32_t find(const std::string& label) const;
  const std::string& owner() const { return owner_; }
  std::size_t size() const { return index_.size(); }
  // "bad, good" (the first 10, then how many more): for messages.
  std::string listed() const;

 private:
  std::unordered_map<std::string, std::int32_t> index_;
  std::vector<std::string> names_;
  std::string owner_;
};

// Labels a data file holds beyond a model's (han eval counts their documents as errors
// instead of refusing the file): label k of `names` gets index known + k.
struct ExtraLabels {
  std::vector<std::string> names;       // in order of first appearance
  std::vector<std::int64_t> documents;  // how many documents have each
  std::int32_t index(const std::string& label, std::size_t known);
  std::int64_t total_documents = 0;     // documents with at least one of them
};

// The example's answer and weight on `doc`: its label's index (single), its label set's
// indices (multilabel) or its target (regression). A label not in `labels` is added to
// `extra` when given; else it is an error naming the example's source unless
// allow_unknown, when it is left out (-1 for a single label).
void set_answer(Document& doc, const Example& example, const LabelIndex& labels, bool allow_unknown = false,
                ExtraLabels* extra = nullptr);

// Maps tokenized text to word ids (for callers that keep the words, e.g. to show
// attention); label -1 = unknown. `keep_unknown`: the words read as <unk> are kept in
// Document::unknown_words (text/reading.h's keeps_unknown_words).
Document encode_words(const TokenizedText& text, const Vocab& vocab, std::int32_t label = -1, bool keep_unknown = false);

// Tokenizes and maps to ids, answers as set_answer.
Document encode(const Example& example, const Tokenizer& tokenizer, const Vocab& vocab,
                const std::vector<std::string>& labels, bool allow_unknown_labels = false);
// The documents of `examples` (read by `tokenizer`), the HAN's view within `caps`;
// `keep_unknown` as encode_words'.
Documents encode_all(const std::vector<Example>& examples, const Tokenizer& tokenizer, Caps caps,
                     const Vocab& vocab, const std::vector<std::string>& labels, bool keep_unknown = false);

// Reads, tokenizes and encodes a data file one example at a time: memory holds the
// documents' ids, never the text; the HAN's view is within `caps`. A label outside `labels`
// is an error naming them as `owner`'s (LabelIndex), unless `extra` counts it.
// `keep_unknown` as encode_words'.
Documents encode_file(const std::string& path, DataFormat format, const LabelOptions& options,
                      const Tokenizer& tokenizer, Caps caps, const Vocab& vocab, const std::vector<std::string>& labels,
                      ExtraLabels* extra = nullptr, const std::string& owner = "the model's", bool keep_unknown = false);

}  // namespace han
