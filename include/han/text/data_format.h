#pragma once
// Which data format a file is in, told from its content: data.format "auto" (the default)
// and han predict without --data-format. A first line that is a JSON object is JSON Lines, one
// starting with "__label__" is fastText, one holding a tab is tsv; a folder is a folder.
#include <optional>
#include <string>
#include <string_view>

#include "han/core/config.h"

namespace han {

inline constexpr std::string_view kFastTextPrefix = "__label__";

// The format a data line looks like (leading spaces and a byte-order mark skipped): jsonl
// for a '{' or '[' first, fasttext for a "__label__" first, tsv for a tab; nullopt for plain text.
std::optional<DataFormat> format_of_line(std::string_view line);

// The format of a file (or folder) by content, for `line` its first non-blank line, read at
// `where` (file:line): han::Error naming it when that line looks like no format.
DataFormat format_of_first_line(std::string_view line, const std::string& where);

// " (it looks like fastText: format fasttext, or auto)" when a line read as `read_as`
// looks like another format, else "": the end of a parse error's message.
std::string other_format_hint(std::string_view line, DataFormat read_as);

// data.format "auto" resolved up front when data.train, data.dev and data.test (the ones
// given, files or folders) all have one format: data.format then names it, so the run's
// config.json says what was read. Files that cannot be opened, stdin, or formats that differ
// leave "auto" (each file is then told apart as it is read).
void resolve_data_format(DataConfig& data);

}  // namespace han
