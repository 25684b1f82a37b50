#pragma once
// Reading labelled text and turning it into documents of word ids.
// Readers: JSON Lines {"label": ..., "text": ...}; fastText "__label__X text";
// TSV "label<TAB>text"; a folder with one sub-folder per class (each file one document).
// Errors (han::Error) name the file and line.
#include <cstdint>
#include <string>
#include <vector>

#include "han/config.h"
#include "han/tokenizer.h"
#include "han/vocab.h"

namespace han {

struct Example {
  std::string label;      // "" when the input carries none
  bool has_label = false;
  std::string text;
  std::string source;     // "file:line" or a file path, for messages
};

// Reads every example of a file (or a folder for DataFormat::folder).
// require_labels: a missing or empty label is an error naming file:line.
std::vector<Example> read_examples(const std::string& path, DataFormat format,
                                   bool require_labels);

// Parses one JSON Lines record (used for files and for `predict --input jsonl` on stdin).
// `where` is "file:line" for messages. The label may be absent when !require_label.
Example parse_jsonl_record(const std::string& line, const std::string& where, bool require_label);

struct Document {
  std::int32_t label = -1;  // index into the label list; -1 = unknown
  std::vector<std::vector<std::int32_t>> sentences;  // word ids, no PAD inside
  std::int64_t tokens() const;
};

// Sorted distinct labels of the examples (the class order of a model).
std::vector<std::string> collect_labels(const std::vector<Example>& examples);

// Tokenizes and maps to ids. A label not in `labels` is an error naming the example's
// source (e.g. evaluating on a class the model never saw) unless allow_unknown_labels.
Document encode(const Example& example, const Tokenizer& tokenizer, const Vocab& vocab,
                const std::vector<std::string>& labels, bool allow_unknown_labels = false);
std::vector<Document> encode_all(const std::vector<Example>& examples, const Tokenizer& tokenizer,
                                 const Vocab& vocab, const std::vector<std::string>& labels);

}  // namespace han
