#include "han/text/dataset.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "han/core/error.h"
#include "han/core/input_stream.h"
#include "han/core/io.h"
#include "han/core/json_text.h"
#include "han/core/line_reader.h"
#include "han/core/text_decoding.h"
#include "han/core/utf8.h"
#include "han/text/data_format.h"

namespace han {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::string_view kBom = "\xEF\xBB\xBF";

std::string_view strip_bom(std::string_view s) {
  if (s.substr(0, kBom.size()) == kBom) s.remove_prefix(kBom.size());
  return s;
}

constexpr const char* kAsciiSpace = " \t\n\r\f\v";

bool is_blank(std::string_view s) { return s.find_first_not_of(kAsciiSpace) == std::string_view::npos; }

std::string_view trim(std::string_view s) {
  const auto b = s.find_first_not_of(kAsciiSpace);
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(kAsciiSpace);
  return s.substr(b, e - b + 1);
}

// The parser's reason for a syntax error, one printable line, with the column.
std::string syntax_error(const json::exception& e, std::size_t column) {
  const std::string reason = json_error_reason(e);
  return column > 0 ? "column " + std::to_string(column) + ": " + reason : reason;
}

// One JSON Lines record, read by events: only the top-level "text", "label" and "id" values
// are kept (moved out of the parser, never copied), whatever else the object holds;
// nesting depth costs nothing since no document tree is built.
struct Field {
  bool present = false;
  const char* type = "null";
  std::string value;  // a string's value; a number's text (3 -> "3"; a float as written)
};

class RecordReader : public nlohmann::json_sax<json> {
 public:
  // target_key: the key of a regression target, or null when the task has none.
  explicit RecordReader(const std::string* target_key) : target_key_(target_key) {}
  const char* top_type = nullptr;  // type name of the top-level value
  Field text, label, labels, id, target, weight;
  std::vector<Field> label_items;  // the values inside a top-level "labels" list
  std::string error;  // set on a syntax error

  bool null() override { return scalar("null"); }
  bool boolean(bool) override { return scalar("boolean"); }
  // A number's text is made only for a kept field (records may hold long number arrays).
  bool number_integer(number_integer_t v) override { return scalar("integer", kept() ? std::to_string(v) : ""); }
  bool number_unsigned(number_unsigned_t v) override { return scalar("integer", kept() ? std::to_string(v) : ""); }
  bool number_float(number_float_t, const string_t& raw) override { return scalar("float", kept() ? raw : ""); }
  bool string(string_t& val) override { return scalar("string", std::move(val)); }
  bool binary(binary_t&) override { return scalar("binary"); }
  bool start_object(std::size_t) override { return open("object"); }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open("array"); }
  bool end_array() override { return close(); }
  bool key(string_t& val) override {
    if (depth_ == 1) {
      current_ = target_key_ && val == *target_key_ ? &target
                 : val == "text"                    ? &text
                 : val == "label"                   ? &label
                 : val == "labels"                  ? &labels
                 : val == "id"                      ? &id
                 : val == "weight"                  ? &weight
                                                    : nullptr;
    }
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
    error = syntax_error(static_cast<const json::exception&>(e), position);
    return false;
  }

 private:
  // The field the value being read belongs to (a direct member of the top object).
  Field* slot() const { return depth_ == 1 ? current_ : nullptr; }
  // A value directly inside the top-level "labels" list.
  bool in_label_list() const { return depth_ == 2 && current_ == &labels && std::strcmp(labels.type, "array") == 0; }
  bool kept() const { return slot() || in_label_list(); }
  bool scalar(const char* type, std::string value = {}) {
    if (depth_ == 0) top_type = type;
    if (in_label_list()) {
      label_items.push_back({true, type, std::move(value)});
    } else if (Field* f = slot()) {
      f->present = true;
      f->type = type;
      f->value = std::move(value);
    }
    return true;
  }
  bool open(const char* type) {
    if (depth_ == 0) {
      top_type = type;
      if (std::strcmp(type, "object") != 0) return false;  // not a record: stop here
    }
    scalar(type);
    ++depth_;
    return true;
  }
  bool close() {
    --depth_;
    return true;
  }
  std::size_t depth_ = 0;
  Field* current_ = nullptr;
  const std::string* target_key_;
};

// A label must be printable on one line of tsv output: non-empty, valid UTF-8, no control
// characters (tabs and line breaks included).
void check_label(std::string_view label, const std::string& where) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(label.data());
  for (std::size_t i = 0; i < label.size();) {
    char32_t c;
    const std::size_t length = decode_utf8(bytes + i, label.size() - i, c);
    if (length == 0) throw Error(where + ": label " + quote_excerpt(label) + " is not valid UTF-8");
    if (c < 0x20 || c == 0x7F) {
      throw Error(where + ": label " + quote_excerpt(label) +
                  " contains a control character (tab, line break, ...)");
    }
    i += length;
  }
  if (label.size() > kMaxLabelBytes) {
    throw Error(where + ": label " + quote_excerpt(label) + " is longer than " +
                std::to_string(kMaxLabelBytes) + " bytes");
  }
}

// The one label rule of every line format: surrounding ASCII whitespace is trimmed (so
// " spam " in jsonl and "spam " in tsv are one class); nothing left is `empty_message` when
// labels are required, else no label; what is left must pass check_label.
void take_label(Example& ex, std::string_view raw, const std::string& where, bool require_label,
                const char* empty_message) {
  const std::string_view label = trim(raw);
  if (label.empty()) {
    if (require_label) throw Error(where + ": " + empty_message);
    return;
  }
  check_label(label, where);
  ex.label = std::string(label);
  ex.has_label = true;
}

// Several labels on one line cannot be one document's single label: refused, never
// reduced to one of them.
[[noreturn]] void several_labels(const std::string& where, const std::vector<std::string_view>& labels) {
  std::string names;
  for (std::size_t i = 0; i < labels.size() && i < 3; ++i)
    names += (i ? ", " : "") + quote_excerpt(std::string(kFastTextPrefix) + std::string(labels[i]));
  if (labels.size() > 3) names += ", ...";
  throw Error(where + ": " + std::to_string(labels.size()) + " labels on one line (" + names +
              ") but model.task is single (one label per document); use model.task=multilabel to keep them all");
}

// One more label of a label set (multilabel): trimmed, checked, kept once.
void add_label(Example& ex, std::string_view raw, const std::string& where) {
  const std::string_view label = trim(raw);
  if (label.empty()) throw Error(where + ": empty label in the label list");
  check_label(label, where);
  ex.has_label = true;
  if (std::find(ex.labels.begin(), ex.labels.end(), label) != ex.labels.end()) return;
  ex.labels.emplace_back(label);
  ex.label = ex.label.empty() ? std::string(label) : ex.label + "," + std::string(label);
}

// A whole number text ("7", "-0.5", "1e3"), surrounding ASCII whitespace allowed.
std::optional<double> parse_number(std::string_view text) {
  text = trim(text);
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value))
    return std::nullopt;
  return value;
}

// A regression target: `what` (e.g. "the label", "\"rating\"") must hold a number.
void take_target(Example& ex, std::string_view raw, const std::string& where, const std::string& what) {
  const std::optional<double> value = parse_number(raw);
  if (!value)
    throw Error(where + ": " + what + " must be a number (model.task regression), got " + quote_excerpt(trim(raw)));
  // Targets are kept as float32 (Documents): a larger one would silently become infinity.
  if (std::fabs(*value) > std::numeric_limits<float>::max())
    throw Error(where + ": " + what + " is " + quote_excerpt(trim(raw)) +
                ", beyond the 32-bit float han keeps a target in (at most 3.4e38 in size)");
  ex.target = *value;
  ex.has_target = true;
  ex.label = std::string(trim(raw));
  ex.has_label = true;
}

Example parse_fasttext_line(std::string_view line, const std::string& where, const LabelOptions& options) {
  const bool require_label = options.require;
  Example ex;
  ex.source = where;
  std::string_view rest = line;
  std::vector<std::string_view> labels;  // distinct, in order
  for (;;) {
    const auto b = rest.find_first_not_of(" \t");
    if (b == std::string_view::npos) {
      rest = {};
      break;
    }
    rest.remove_prefix(b);
    if (rest.substr(0, kFastTextPrefix.size()) != kFastTextPrefix) break;
    auto e = rest.find_first_of(" \t");
    if (e == std::string_view::npos) e = rest.size();
    const std::string_view label = trim(rest.substr(kFastTextPrefix.size(), e - kFastTextPrefix.size()));
    if (std::find(labels.begin(), labels.end(), label) == labels.end()) labels.push_back(label);
    rest.remove_prefix(e);
  }
  if (require_label && labels.empty()) {
    throw Error(where + ": missing label (expected \"__label__NAME text\")");
  }
  if (options.task == Task::multilabel) {
    for (std::string_view label : labels) add_label(ex, label, where);
  } else if (labels.size() > 1) {
    if (options.task == Task::regression)
      throw Error(where + ": " + std::to_string(labels.size()) +
                  " labels on one line, but a regression target is one number");
    several_labels(where, labels);
  } else if (!labels.empty() && options.task == Task::regression) {
    take_target(ex, labels.front(), where, "the label");
  } else if (!labels.empty()) {
    take_label(ex, labels.front(), where, require_label, "empty label after \"__label__\"");
  }
  ex.text = std::string(rest);
  return ex;
}

// The labels of a tsv label field, split at the separator (multilabel).
void take_label_list(Example& ex, std::string_view field, const std::string& separator, const std::string& where) {
  for (std::size_t start = 0;;) {
    const std::size_t end = field.find(separator, start);
    add_label(ex, field.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start), where);
    if (end == std::string_view::npos) break;
    start = end + separator.size();
  }
}

Example parse_tsv_line(std::string_view line, const std::string& where, const LabelOptions& options) {
  Example ex;
  ex.source = where;
  const auto tab = line.find('\t');
  if (tab == std::string_view::npos) {
    if (options.require) throw Error(where + ": missing label (expected \"label<TAB>text\")");
    ex.text = std::string(line);
    return ex;
  }
  const std::string_view field = line.substr(0, tab);
  if (is_blank(field) || options.task == Task::single)
    take_label(ex, field, where, options.require, "empty label before the tab");
  else if (options.task == Task::multilabel)
    take_label_list(ex, field, options.separator, where);
  else
    take_target(ex, field, where, "the label");
  ex.text = std::string(line.substr(tab + 1));
  return ex;
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// A tsv file's first line "label<TAB>text" (any case, fields trimmed) names the columns:
// it is skipped rather than read as a document of class "label". Nothing else is guessed.
bool is_tsv_header(std::string_view line) {
  const auto tab = line.find('\t');
  return tab != std::string_view::npos && equals_ignoring_case(trim(line.substr(0, tab)), "label") &&
         equals_ignoring_case(trim(line.substr(tab + 1)), "text");
}

}  // namespace

Example parse_record(std::string_view line, const std::string& where, DataFormat format,
                     const LabelOptions& options) {
  switch (format) {
    case DataFormat::jsonl:
      return parse_jsonl_record(line, where, options);
    case DataFormat::fasttext:
      return parse_fasttext_line(line, where, options);
    case DataFormat::tsv:
      return parse_tsv_line(line, where, options);
    case DataFormat::folder:
    case DataFormat::auto_detect:
      break;
  }
  HAN_ASSERT(false);
  return {};
}

namespace {

// The record of a data line; a parse error on the first one says which format the line
// looks like when it is not the one read.
Example parse_data_line(std::string_view line, const std::string& where, DataFormat format,
                        const LabelOptions& options, bool first) {
  if (!first) return parse_record(line, where, format, options);
  try {
    return parse_record(line, where, format, options);
  } catch (const Error& e) {
    const std::string hint = other_format_hint(line, format);
    if (hint.empty()) throw;
    throw Error(e.what() + hint, e.exit_code());
  }
}

// Records of one line-based file, read as a stream: the file is never held whole, only
// the current line (so a 100 MB line costs about its own size, not several copies). Under
// data.format auto the first non-blank line tells the format.
void visit_line_file(const std::string& path, DataFormat format, const LabelOptions& options,
                     const ExampleVisitor& visit) {
  // Data from a terminal would wait for typing that never comes: a forgotten pipe.
  if (is_stdin_name(path) && ::isatty(STDIN_FILENO))
    throw Error("-: standard input is a terminal; pipe the data in (e.g. cat data.jsonl | han ...)");
  InputStream in(path);
  // JSON cannot be cut short; the other formats keep the first kMaxLineBytes of a line.
  const bool json_cap = format == DataFormat::jsonl || format == DataFormat::auto_detect;
  LineReader reader(in, json_cap ? kMaxRecordBytes + 1 : kMaxLineBytes, /*cr_ends_line=*/true);
  TextDecoder decoder(options.encoding);
  std::string line;
  bool first = true;
  while (reader.next(line)) {
    const std::size_t line_no = reader.line_number();
    if (line_no == 1 && strip_bom(line).size() != line.size()) line.erase(0, kBom.size());
    const std::string where = path + ":" + std::to_string(line_no);
    if (format == DataFormat::auto_detect && !is_blank(line)) {
      format = format_of_first_line(line, where);
      if (format != DataFormat::jsonl) {
        reader.set_max_line_bytes(kMaxLineBytes);
        if (line.size() > kMaxLineBytes) line.resize(kMaxLineBytes);
      }
    }
    decoder.decode(line);
    const std::string_view view = line;
    if (format == DataFormat::tsv && line_no == 1 && is_tsv_header(view)) {
      const auto tab = view.find('\t');
      spdlog::info("{}:1: header row \"{}<TAB>{}\" skipped", path, trim(view.substr(0, tab)),
                   trim(view.substr(tab + 1)));
    } else if (!is_blank(view)) {
      if (format == DataFormat::jsonl && line.size() > kMaxRecordBytes) {
        throw Error(where + ": " + line_too_long(kMaxRecordBytes));
      }
      visit(parse_data_line(view, where, format, options, first));
      first = false;
    }
    // Give back the memory of an exceptionally long line before reading the next one.
    if (line.capacity() > (std::size_t{4} << 20)) std::string().swap(line);
  }
  for (const std::string& w : decoder.warnings(input_name(path))) spdlog::warn("{}", w);
}

std::vector<fs::path> sorted_entries(const fs::path& dir, bool want_dirs) {
  std::vector<fs::path> out;
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) throw Error(dir.string() + ": cannot list folder: " + ec.message());
  for (const fs::directory_iterator end; it != end; it.increment(ec)) {
    if (ec) break;
    const fs::path p = it->path();
    const std::string name = p.filename().string();
    if (name.empty() || name[0] == '.') continue;  // hidden files (.DS_Store, .gitkeep)
    std::error_code type_ec;
    const bool ok = want_dirs ? fs::is_directory(p, type_ec) : fs::is_regular_file(p, type_ec);
    if (ok && !type_ec) out.push_back(p);
  }
  if (ec) throw Error(dir.string() + ": cannot list folder: " + ec.message());
  std::sort(out.begin(), out.end(), [](const fs::path& a, const fs::path& b) {
    return a.filename().string() < b.filename().string();
  });
  return out;
}

void visit_folder(const std::string& path, TextEncoding encoding, const ExampleVisitor& visit) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) throw Error(path + ": no such folder");
  if (!fs::is_directory(st)) {
    throw Error(path + ": not a folder (format \"folder\" expects one sub-folder per class)");
  }
  const std::vector<fs::path> class_dirs = sorted_entries(path, true);
  if (class_dirs.empty())
    throw Error(path + ": a directory without sub-folders; a folder of data holds one sub-folder per class (" + path +
                "/<label>/<file>), and a data file is given by its path");
  TextDecoder decoder(encoding);
  for (const fs::path& class_dir : class_dirs) {
    const std::string label = class_dir.filename().string();
    for (const fs::path& file : sorted_entries(class_dir, false)) {
      Example ex;
      ex.label = label;
      ex.has_label = true;
      ex.source = file.string();
      ReadOptions options;  // a document keeps its first kMaxLineBytes, like a tsv line
      options.max_bytes = kMaxLineBytes;
      options.truncate = true;
      ex.text = read_file(ex.source, options);
      if (strip_bom(ex.text).size() != ex.text.size()) ex.text.erase(0, kBom.size());
      decoder.decode(ex.text);
      visit(std::move(ex));
    }
  }
  for (const std::string& w : decoder.warnings(path, "file")) spdlog::warn("{}", w);
}

bool given(const Field& f) { return f.present && std::strcmp(f.type, "null") != 0; }

bool is_label_type(const Field& f) { return std::strcmp(f.type, "string") == 0 || std::strcmp(f.type, "integer") == 0; }

bool is_number_type(const Field& f) { return std::strcmp(f.type, "integer") == 0 || std::strcmp(f.type, "float") == 0; }

void jsonl_single_label(const RecordReader& reader, Example& ex, const std::string& where, bool require_label) {
  if (given(reader.labels))
    throw Error(where + ": \"labels\" (a list of labels) but model.task is single (one label per document); give "
                "one \"label\", or use model.task=multilabel");
  const Field& label = reader.label;
  if (!given(label)) {
    if (require_label) throw Error(where + ": missing \"label\"");
    return;
  }
  // An integer label (3) is read as its text ("3"), as class names are strings.
  if (!is_label_type(label))
    throw Error(where + ": \"label\" must be a string or an integer, got " + std::string(label.type));
  take_label(ex, label.value, where, require_label, "empty \"label\"");
}

void jsonl_label_set(const RecordReader& reader, Example& ex, const std::string& where, bool require_label) {
  if (given(reader.labels) && given(reader.label))
    throw Error(where + ": both \"label\" and \"labels\": give one of them");
  if (given(reader.label)) {
    if (!is_label_type(reader.label))
      throw Error(where + ": \"label\" must be a string or an integer, got " + std::string(reader.label.type));
    if (is_blank(reader.label.value)) throw Error(where + ": empty \"label\"");
    add_label(ex, reader.label.value, where);
    return;
  }
  if (!given(reader.labels)) {
    if (require_label) throw Error(where + ": missing \"labels\" (or \"label\")");
    return;
  }
  if (std::strcmp(reader.labels.type, "array") != 0)
    throw Error(where + ": \"labels\" must be a list, got " + std::string(reader.labels.type));
  if (reader.label_items.empty()) throw Error(where + ": empty label list (\"labels\": []): a document needs a label");
  for (std::size_t i = 0; i < reader.label_items.size(); ++i) {
    const Field& item = reader.label_items[i];
    if (!is_label_type(item))
      throw Error(where + ": \"labels\" item " + std::to_string(i + 1) + " must be a string or an integer, got " +
                  std::string(item.type));
    add_label(ex, item.value, where);
  }
}

void jsonl_target(const RecordReader& reader, Example& ex, const std::string& where, const LabelOptions& options) {
  const std::string key = "\"" + options.target_key + "\"";
  const Field& target = reader.target;
  if (!given(target)) {
    if (options.require) throw Error(where + ": missing " + key + " (the number to predict; data.target_key)");
    return;
  }
  if (!is_number_type(target) && std::strcmp(target.type, "string") != 0)
    throw Error(where + ": " + key + " must be a number (model.task regression), got " + std::string(target.type));
  take_target(ex, target.value, where, key);
}

double record_weight(const Field& weight, const std::string& where) {
  const bool number = is_number_type(weight);
  const std::optional<double> w = number ? parse_number(weight.value) : std::nullopt;
  // Weights are kept as float32: one that rounds to 0 or infinity there is refused too.
  if (!w || !(static_cast<float>(*w) > 0) || !std::isfinite(static_cast<float>(*w)))
    throw Error(where + ": \"weight\" must be a positive number within a 32-bit float's range, got " +
                (number ? weight.value : std::string(weight.type)));
  return *w;
}

}  // namespace

Example parse_jsonl_record(std::string_view line, const std::string& where, bool require_label) {
  LabelOptions options;
  options.require = require_label;
  return parse_jsonl_record(line, where, options);
}

Example parse_jsonl_record(std::string_view line, const std::string& where, const LabelOptions& options) {
  RecordReader reader(options.task == Task::regression ? &options.target_key : nullptr);
  try {
    const std::string_view body = strip_bom(line);
    json::sax_parse(body.begin(), body.end(), &reader);
  } catch (const json::exception& e) {  // thrown by nlohmann outside the SAX callbacks
    throw Error(where + ": malformed JSON: " + json_error_reason(e));
  }
  if (!reader.error.empty()) throw Error(where + ": malformed JSON: " + reader.error);
  if (reader.top_type && std::strcmp(reader.top_type, "object") != 0) {
    throw Error(where + ": expected a JSON object, got " + std::string(reader.top_type));
  }
  Example ex;
  ex.source = where;
  const Field& text = reader.text;
  if (!text.present) throw Error(where + ": missing \"text\"");
  if (std::strcmp(text.type, "string") != 0) {
    throw Error(where + ": \"text\" must be a string, got " + std::string(text.type));
  }
  ex.text = std::move(reader.text.value);
  if (reader.id.present) {
    ex.id = std::move(reader.id.value);
    ex.id_type = reader.id.type;
  }
  if (given(reader.weight)) ex.weight = record_weight(reader.weight, where);
  switch (options.task) {
    case Task::single:
      jsonl_single_label(reader, ex, where, options.require);
      break;
    case Task::multilabel:
      jsonl_label_set(reader, ex, where, options.require);
      break;
    case Task::regression:
      jsonl_target(reader, ex, where, options);
      break;
  }
  return ex;
}

LabelOptions label_options(const Config& cfg, bool require) {
  LabelOptions o;
  o.task = cfg.model.task;
  o.require = require;
  o.separator = cfg.data.label_separator;
  o.target_key = cfg.data.target_key;
  o.encoding = cfg.data.encoding;
  return o;
}

std::vector<Example> read_examples(const std::string& path, DataFormat format,
                                   bool require_labels) {
  LabelOptions options;
  options.require = require_labels;
  return read_examples(path, format, options);
}

void visit_examples(const std::string& path, DataFormat format, const LabelOptions& options,
                    const ExampleVisitor& visit) {
  std::error_code ec;
  if (format == DataFormat::auto_detect && fs::is_directory(path, ec)) format = DataFormat::folder;
  if (format != DataFormat::folder) return visit_line_file(path, format, options, visit);
  if (options.task != Task::single)
    throw Error("data.format: folder gives one label per document (its sub-folder); model.task " +
                std::string(to_string(options.task)) + " needs jsonl, fasttext or tsv");
  visit_folder(path, options.encoding, visit);
}

std::vector<Example> read_examples(const std::string& path, DataFormat format, const LabelOptions& options) {
  std::vector<Example> out;
  visit_examples(path, format, options, [&](Example&& ex) { out.push_back(std::move(ex)); });
  return out;
}

std::int64_t Document::tokens() const {
  std::int64_t n = 0;
  for (const auto& s : sentences) n += static_cast<std::int64_t>(s.size());
  return n;
}

}  // namespace han
