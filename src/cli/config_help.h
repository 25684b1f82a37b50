#pragma once
// `han help config [KEY|SECTION] [--markdown]`: the configuration keys, printed from the
// table the parser itself uses (han/core/config.h: config_keys), so the reference cannot
// drift from what han accepts. The man page and docs/configuration.md hold the same rows.
#include <optional>
#include <string>
#include <vector>

namespace han::cli {

// Every key, or the keys of one section, one block each: path, type, default, meaning.
std::string config_help_text(const std::string& section = "");

// One key in full, with what a stored config without it means.
std::string config_key_help(const std::string& path);

// The keys as a Markdown table (docs/configuration.md embeds it).
std::string config_help_markdown();

// The keys as roff for the man page's CONFIGURATION section.
std::string config_help_roff();

// Answers `han help config ...` (args: the words after "config"); nothing for other words.
std::optional<int> answer_help_config(const std::vector<std::string>& args);

}  // namespace han::cli
