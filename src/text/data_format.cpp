#include "han/text/data_format.h"

#include <filesystem>
#include <string>
#include <vector>

#include "han/core/error.h"
#include "han/core/input_stream.h"
#include "han/core/line_reader.h"
#include "han/core/limits.h"

namespace han {
namespace {

namespace fs = std::filesystem;

std::string_view skip_bom_and_spaces(std::string_view line) {
  if (line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);
  const auto b = line.find_first_not_of(" \t\r\n");
  return b == std::string_view::npos ? std::string_view{} : line.substr(b);
}

const char* format_title(DataFormat f) {
  switch (f) {
    case DataFormat::jsonl: return "JSON Lines";
    case DataFormat::fasttext: return "fastText";
    case DataFormat::tsv: return "tsv";
    default: return "a folder";
  }
}

// The format of `path` by its first non-blank line; nullopt when it cannot be read here
// (stdin, a missing file: the reader says why later). A file without a data line is JSON
// Lines (it holds no documents in any format).
std::optional<DataFormat> format_of_path(const std::string& path) {
  if (path.empty() || is_stdin_name(path)) return std::nullopt;
  std::error_code ec;
  if (fs::is_directory(path, ec)) return DataFormat::folder;
  if (!fs::exists(path, ec)) return std::nullopt;
  std::string line, where;
  try {
    InputStream in(path);
    LineReader reader(in, kMaxLineBytes, /*cr_ends_line=*/true);
    while (where.empty() && reader.next(line))
      if (!skip_bom_and_spaces(line).empty()) where = path + ":" + std::to_string(reader.line_number());
  } catch (const Error&) {
    return std::nullopt;  // unreadable: the reader reports it in its own words
  }
  if (where.empty()) return DataFormat::jsonl;
  return format_of_first_line(line, where);
}

}  // namespace

std::optional<DataFormat> format_of_line(std::string_view line) {
  const std::string_view s = skip_bom_and_spaces(line);
  if (s.empty()) return std::nullopt;
  if (s.front() == '{' || s.front() == '[') return DataFormat::jsonl;  // '[': a JSON value, refused as a record
  if (s.substr(0, kFastTextPrefix.size()) == kFastTextPrefix) return DataFormat::fasttext;
  if (s.find('\t') != std::string_view::npos) return DataFormat::tsv;
  return std::nullopt;
}

DataFormat format_of_first_line(std::string_view line, const std::string& where) {
  if (const auto f = format_of_line(line)) return *f;
  throw Error(where +
              ": cannot tell the data format: the line is not a JSON record, does not start with __label__ and "
              "has no tab (plain text has no labels); name the format (data.format, or --data-format: jsonl, fasttext, "
              "tsv or folder)");
}

std::string other_format_hint(std::string_view line, DataFormat read_as) {
  const auto f = format_of_line(line);
  if (!f || *f == read_as) return "";
  return std::string(" (it looks like ") + format_title(*f) + ": format " + to_string(*f) + ", or auto)";
}

void resolve_data_format(DataConfig& data) {
  if (data.format != DataFormat::auto_detect) return;
  std::optional<DataFormat> found;
  for (const std::string* path : {&data.train, &data.dev, &data.test}) {
    if (path->empty()) continue;
    const std::optional<DataFormat> f = format_of_path(*path);
    if (!f || (found && *found != *f)) return;
    found = f;
  }
  if (found) data.format = *found;
}

}  // namespace han
