#include "han/dataset.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <utility>

#include "han/error.h"
#include "han/io.h"

namespace han {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::string_view kBom = "\xEF\xBB\xBF";
constexpr std::string_view kFastTextPrefix = "__label__";

std::string_view strip_bom(std::string_view s) {
  if (s.substr(0, kBom.size()) == kBom) s.remove_prefix(kBom.size());
  return s;
}

bool is_blank(std::string_view s) {
  return s.find_first_not_of(" \t\r\f\v") == std::string_view::npos;
}

std::string_view trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r\f\v");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\f\v");
  return s.substr(b, e - b + 1);
}

// A short, single-line reason from nlohmann's parse error text, e.g.
// "[json.exception.parse_error.101] parse error at line 1, column 8: syntax error while
// parsing object - unexpected end of input; expected '}'" -> "column 8: unexpected end
// of input; expected '}'". The "last read" excerpt is dropped: it may hold raw bytes.
std::string short_json_reason(const json::parse_error& e) {
  std::string_view what = e.what();
  std::string_view reason = what;
  if (const auto colon = what.find(": "); colon != std::string_view::npos) {
    reason = what.substr(colon + 2);
  }
  if (const auto dash = reason.find(" - "); reason.substr(0, 13) == "syntax error " &&
                                            dash != std::string_view::npos) {
    reason = reason.substr(dash + 3);
  }
  std::string out(reason);
  if (const auto lr = out.find("; last read: "); lr != std::string::npos) {
    const auto ex = out.find("; expected ", lr);
    out = out.substr(0, lr) + (ex == std::string::npos ? std::string() : out.substr(ex));
  }
  return "column " + std::to_string(e.byte) + ": " + out;
}

const char* json_type(const json& j) { return j.type_name(); }

// Calls fn(line, line_number) for every non-blank line; handles a leading BOM and CRLF.
template <typename Fn>
void for_each_line(std::string_view content, Fn&& fn) {
  content = strip_bom(content);
  std::size_t line_no = 0;
  std::size_t pos = 0;
  while (pos < content.size()) {
    ++line_no;
    std::size_t end = content.find('\n', pos);
    if (end == std::string_view::npos) end = content.size();
    std::string_view line = content.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos = end + 1;
    if (is_blank(line)) continue;
    fn(line, line_no);
  }
}

Example parse_fasttext_line(std::string_view line, const std::string& where, bool require_label) {
  Example ex;
  ex.source = where;
  std::string_view rest = line;
  bool first = true;
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
    if (first) {
      ex.label = std::string(rest.substr(kFastTextPrefix.size(), e - kFastTextPrefix.size()));
      ex.has_label = true;
      first = false;
    }
    rest.remove_prefix(e);  // later labels are dropped, not kept as text
  }
  if (require_label && !ex.has_label) {
    throw Error(where + ": missing label (expected \"__label__NAME text\")");
  }
  if (ex.has_label && ex.label.empty()) {
    if (require_label) throw Error(where + ": empty label after \"__label__\"");
    ex.has_label = false;
  }
  ex.text = std::string(rest);
  return ex;
}

Example parse_tsv_line(std::string_view line, const std::string& where, bool require_label) {
  Example ex;
  ex.source = where;
  const auto tab = line.find('\t');
  if (tab == std::string_view::npos) {
    if (require_label) throw Error(where + ": missing label (expected \"label<TAB>text\")");
    ex.text = std::string(line);
    return ex;
  }
  const std::string_view label = trim(line.substr(0, tab));
  if (label.empty()) {
    if (require_label) throw Error(where + ": empty label before the tab");
  } else {
    ex.label = std::string(label);
    ex.has_label = true;
  }
  ex.text = std::string(line.substr(tab + 1));
  return ex;
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

std::vector<Example> read_folder(const std::string& path) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) throw Error(path + ": no such folder");
  if (!fs::is_directory(st)) {
    throw Error(path + ": not a folder (format \"folder\" expects one sub-folder per class)");
  }
  std::vector<Example> out;
  for (const fs::path& class_dir : sorted_entries(path, true)) {
    const std::string label = class_dir.filename().string();
    for (const fs::path& file : sorted_entries(class_dir, false)) {
      Example ex;
      ex.label = label;
      ex.has_label = true;
      ex.source = file.string();
      const std::string content = read_file(ex.source);
      ex.text = std::string(strip_bom(content));
      out.push_back(std::move(ex));
    }
  }
  return out;
}

Document encode_with_label(const Example& example, const Tokenizer& tokenizer,
                           const Vocab& vocab, std::int32_t label) {
  Document doc;
  doc.label = label;
  const TokenizedText text = tokenizer.tokenize(example.text);
  doc.sentences.reserve(text.size());
  for (const Sentence& sentence : text) {
    if (sentence.empty()) continue;
    std::vector<std::int32_t> ids;
    ids.reserve(sentence.size());
    for (const std::string& w : sentence) ids.push_back(vocab.id(w));
    doc.sentences.push_back(std::move(ids));
  }
  return doc;
}

[[noreturn]] void unknown_label(const Example& example, std::size_t n_labels) {
  throw Error(example.source + ": label \"" + example.label + "\" is not one of the model's " +
              std::to_string(n_labels) + " labels");
}

}  // namespace

Example parse_jsonl_record(const std::string& line, const std::string& where, bool require_label) {
  json j;
  try {
    j = json::parse(strip_bom(line));
  } catch (const json::parse_error& e) {
    throw Error(where + ": malformed JSON: " + short_json_reason(e));
  }
  if (!j.is_object()) {
    throw Error(where + ": expected a JSON object, got " + std::string(json_type(j)));
  }
  Example ex;
  ex.source = where;
  const auto text = j.find("text");
  if (text == j.end()) throw Error(where + ": missing \"text\"");
  if (!text->is_string()) {
    throw Error(where + ": \"text\" must be a string, got " + std::string(json_type(*text)));
  }
  ex.text = text->get<std::string>();
  const auto label = j.find("label");
  if (label == j.end() || label->is_null()) {
    if (require_label) throw Error(where + ": missing \"label\"");
    return ex;
  }
  if (!label->is_string()) {
    throw Error(where + ": \"label\" must be a string, got " + std::string(json_type(*label)));
  }
  ex.label = label->get<std::string>();
  if (ex.label.empty()) {
    if (require_label) throw Error(where + ": empty \"label\"");
    return ex;
  }
  ex.has_label = true;
  return ex;
}

std::vector<Example> read_examples(const std::string& path, DataFormat format,
                                   bool require_labels) {
  if (format == DataFormat::folder) return read_folder(path);
  require_regular_file(path);
  const std::string content = read_file(path);
  std::vector<Example> out;
  for_each_line(content, [&](std::string_view line, std::size_t line_no) {
    const std::string where = path + ":" + std::to_string(line_no);
    switch (format) {
      case DataFormat::jsonl:
        out.push_back(parse_jsonl_record(std::string(line), where, require_labels));
        break;
      case DataFormat::fasttext:
        out.push_back(parse_fasttext_line(line, where, require_labels));
        break;
      case DataFormat::tsv:
        out.push_back(parse_tsv_line(line, where, require_labels));
        break;
      case DataFormat::folder:
        break;
    }
  });
  return out;
}

std::int64_t Document::tokens() const {
  std::int64_t n = 0;
  for (const auto& s : sentences) n += static_cast<std::int64_t>(s.size());
  return n;
}

std::vector<std::string> collect_labels(const std::vector<Example>& examples) {
  std::vector<std::string> labels;
  for (const Example& ex : examples) {
    if (ex.has_label) labels.push_back(ex.label);
  }
  std::sort(labels.begin(), labels.end());
  labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
  return labels;
}

Document encode(const Example& example, const Tokenizer& tokenizer, const Vocab& vocab,
                const std::vector<std::string>& labels, bool allow_unknown_labels) {
  std::int32_t label = -1;
  if (example.has_label) {
    const auto it = std::find(labels.begin(), labels.end(), example.label);
    if (it != labels.end()) {
      label = static_cast<std::int32_t>(it - labels.begin());
    } else if (!allow_unknown_labels) {
      unknown_label(example, labels.size());
    }
  }
  return encode_with_label(example, tokenizer, vocab, label);
}

std::vector<Document> encode_all(const std::vector<Example>& examples, const Tokenizer& tokenizer,
                                 const Vocab& vocab, const std::vector<std::string>& labels) {
  std::unordered_map<std::string, std::int32_t> index;
  index.reserve(labels.size());
  for (std::size_t i = 0; i < labels.size(); ++i) {
    index.emplace(labels[i], static_cast<std::int32_t>(i));
  }
  std::vector<Document> docs;
  docs.reserve(examples.size());
  for (const Example& ex : examples) {
    std::int32_t label = -1;
    if (ex.has_label) {
      const auto it = index.find(ex.label);
      if (it == index.end()) unknown_label(ex, labels.size());
      label = it->second;
    }
    docs.push_back(encode_with_label(ex, tokenizer, vocab, label));
  }
  return docs;
}

}  // namespace han
