#pragma once
// Reading labelled text and turning it into documents of word ids.
// Readers: JSON Lines {"label": ..., "text": ...}; fastText "__label__X text";
// TSV "label<TAB>text"; a folder with one sub-folder per class (each file one document).
// Errors (han::Error) name the file and line.
// Lines end at \n, \r\n or a lone \r; a leading UTF-8 byte-order mark is skipped; blank
// lines are skipped (line numbers still count them). A tsv file whose first line is
// "label<TAB>text" (any case, fields trimmed) has a header row: it is skipped, with an info
// log line naming the file. Files are read as a stream, one
// line at a time, so memory holds the examples plus the current line only.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "han/core/config.h"
#include "han/core/limits.h"
#include "han/text/tokenizer.h"
#include "han/text/vocab.h"

namespace han {

// Limits on what a data file may hold (errors name file:line, exit 2):
// a JSON Lines record longer than kMaxRecordBytes is refused (JSON cannot be cut short);
// a fasttext/tsv line keeps its first kMaxLineBytes (core/limits.h); a label (in every line
// format trimmed of surrounding ASCII whitespace) is non-empty,
// valid UTF-8, without control characters (tabs, line breaks) and at most kMaxLabelBytes
// long; a training set has at most kMaxLabels labels.
constexpr std::size_t kMaxRecordBytes = std::size_t{256} << 20;
constexpr std::size_t kMaxLabelBytes = 1024;
constexpr std::size_t kMaxLabels = 100000;

// How a record's gold answer is read, by model.task: one label; a label set (JSON Lines
// "labels": [..] or "label", several fastText __label__s, a tsv label field split at
// `separator`); or a number (JSON Lines `target_key`, a fastText or tsv label that is a number).
struct LabelOptions {
  Task task = Task::single;
  bool require = true;  // a record without its answer is an error naming file:line
  std::string separator = ",";
  std::string target_key = "target";
  // How the bytes are read (core/text_decoding.h); each file read says in a warning how many
  // of its lines were not UTF-8, and whether it looks binary.
  TextEncoding encoding = TextEncoding::auto_;
};
LabelOptions label_options(const Config& cfg, bool require);

struct Example {
  std::string label;  // "" when the input carries none; multilabel: the labels joined by ","; regression: the number
  bool has_label = false;  // the record carries its answer (a label, a label set or a target)
  std::string text;
  std::string source;     // "file:line" or a file path, for messages
  // JSON Lines only: the record's top-level "id", for callers that pass it through
  // (predict): a string's value or a number's text, and its JSON type ("" when absent).
  std::string id;
  std::string id_type;
  std::vector<std::string> labels;  // multilabel: every label, distinct, in order
  double target = 0;                // regression
  bool has_target = false;          // regression: the answer is `target`
  double weight = 1;  // JSON Lines "weight": how much the document counts in the training loss
};

// Reads every example of a file (or a folder for DataFormat::folder).
// require_labels: a missing or empty label is an error naming file:line.
std::vector<Example> read_examples(const std::string& path, DataFormat format,
                                   bool require_labels);
std::vector<Example> read_examples(const std::string& path, DataFormat format, const LabelOptions& options);
// The same examples handed to `visit` one at a time, as they are read: memory holds one.
using ExampleVisitor = std::function<void(Example&&)>;
void visit_examples(const std::string& path, DataFormat format, const LabelOptions& options,
                    const ExampleVisitor& visit);

// Parses one JSON Lines record (used for files and for `predict --data-format jsonl`).
// `where` is "file:line" for messages. The label may be absent when !require_label.
// Other keys are ignored, whatever they hold ("id" is kept, never checked); a leading BOM
// is skipped. An integer label (3) is read as its text ("3"); any other non-string label is
// an error naming its type.
Example parse_jsonl_record(std::string_view line, const std::string& where, bool require_label);
Example parse_jsonl_record(std::string_view line, const std::string& where, const LabelOptions& options);

// One line of a line format (jsonl, fasttext or tsv) as its record, as the file readers
// parse it; `where` is "file:line" for messages.
Example parse_record(std::string_view line, const std::string& where, DataFormat format,
                     const LabelOptions& options);

struct Document {
  std::int32_t label = -1;  // index into the label list; -1 = unknown
  std::vector<std::int32_t> label_set;  // multilabel: indices into the label list
  float target = 0;                      // regression
  float weight = 1;                      // in the training loss
  std::vector<std::vector<std::int32_t>> sentences;  // word ids, no PAD inside
  std::vector<std::string> unknown_words;  // the words read as <unk>, in order (when kept)
  std::int64_t tokens() const;
};

}  // namespace han
