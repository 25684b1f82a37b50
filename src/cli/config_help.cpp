#include "config_help.h"

#include <cstdio>
#include <sstream>
#include <utility>

#include "han/core/config.h"
#include "han/core/suggest.h"

namespace han::cli {
namespace {

constexpr std::size_t kWidth = 80;

// `text` as lines of at most kWidth columns, each starting with `indent`.
std::string wrapped(const std::string& text, const std::string& indent) {
  std::istringstream words(text);
  std::string word, line, out;
  while (words >> word) {
    if (!line.empty() && indent.size() + line.size() + 1 + word.size() > kWidth) {
      out += indent + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty()) out += indent + line + "\n";
  return out;
}

std::string type_and_range(const ConfigKey& k) {
  if (k.type == "boolean" || k.type == "path" || k.type == "path or null") return k.type;
  if (k.type == "choice") return "one of " + k.allowed;
  if (k.type == "string" || k.type == "weights") return k.allowed;
  return k.type + " " + k.allowed;
}

std::string block(const ConfigKey& k) {
  return k.path() + " = " + k.default_value + "  (" + type_and_range(k) + ")\n" + wrapped(k.meaning, "    ");
}

bool has_section(const std::string& name) {
  for (const ConfigKey& k : config_keys())
    if (k.section == name) return true;
  return false;
}

const ConfigKey* find_key(const std::string& path) {
  for (const ConfigKey& k : config_keys())
    if (k.path() == path) return &k;
  return nullptr;
}

// A key's name without its section ("epochs") finds it when only one section has it.
const ConfigKey* find_by_name(const std::string& name) {
  const ConfigKey* found = nullptr;
  for (const ConfigKey& k : config_keys()) {
    if (k.name != name) continue;
    if (found) return nullptr;
    found = &k;
  }
  return found;
}

// The error for a name that is no key or section; returns the exit status.
int report_unknown(const std::string& typed) {
  std::string sections;  // a name that two sections share ("epochs")
  for (const ConfigKey& k : config_keys())
    if (k.name == typed) sections += (sections.empty() ? "" : " or ") + k.path();
  if (!sections.empty()) {
    std::fprintf(stderr, "han: error: \"%s\" is a key of more than one section: say %s\n", typed.c_str(),
                 sections.c_str());
    return 2;
  }
  std::vector<std::pair<std::string, std::string>> names;
  for (const ConfigKey& k : config_keys()) names.emplace_back(k.path(), k.path());
  for (const ConfigKey& k : config_keys()) names.emplace_back(k.name, k.path());
  std::fprintf(stderr, "han: error: no config key or section \"%s\"%s (han help config lists them)\n", typed.c_str(),
               suggestion(typed, names).c_str());
  return 2;
}

std::string markdown_cell(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

std::string roff_text(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '\\' ? std::string("\\e") : c == '-' ? std::string("\\-") : std::string(1, c);
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out = "\\&" + out;
  return out;
}

}  // namespace

std::string config_help_text(const std::string& section) {
  std::string out;
  if (section.empty())
    out = "Configuration keys: a config file is a JSON object of sections, e.g.\n"
          "  {\"trainer\": {\"epochs\": 5}, \"model\": {\"mask\": \"none\"}}\n"
          "and --set trainer.epochs=5 sets one key on the command line. Each key below shows\n"
          "its default, its type and range, and its meaning. han help config KEY tells more.\n";
  std::string current;
  for (const ConfigKey& k : config_keys()) {
    if (!section.empty() && k.section != section) continue;
    if (k.section != current) {
      out += (out.empty() ? "" : "\n") + std::string("[") + k.section + "]\n";
      current = k.section;
    }
    out += block(k);
  }
  return out;
}

std::string config_key_help(const std::string& path) {
  const ConfigKey* k = find_key(path);
  if (!k) k = find_by_name(path);
  if (!k) return "";
  std::string out = k->path() + "\n";
  out += "  type     " + type_and_range(*k) + "\n";
  out += "  default  " + k->default_value + "\n";
  out += wrapped(k->meaning, "           ").replace(0, 11, "  meaning  ");
  out += "  set it   --set " + k->path() + "=" + k->default_value + "   or in a config file:   {\"" + k->section +
         "\": {\"" + k->name + "\": " + k->default_value + "}}\n";
  if (!k->absent_means.empty())
    out += "  stored   a model or run folder whose config lacks this key was made with " + k->absent_means +
           " (han 0.1.0)\n";
  return out;
}

std::string config_help_markdown() {
  std::string out = "| key | default | type and range | meaning |\n|---|---|---|---|\n";
  for (const ConfigKey& k : config_keys())
    out += "| `" + k.path() + "` | `" + markdown_cell(k.default_value) + "` | " + markdown_cell(type_and_range(k)) +
           " | " + markdown_cell(k.meaning) + " |\n";
  return out;
}

std::string config_help_roff() {
  std::string out;
  for (const ConfigKey& k : config_keys())
    out += ".TP\n.B " + k.path() + "\n" + roff_text(type_and_range(k) + "; default " + k.default_value + ". " +
                                                   k.meaning) + "\n";
  return out;
}

std::optional<int> answer_help_config(const std::vector<std::string>& args) {
  if (args.empty() || args[0] != "config") return std::nullopt;
  std::string out;
  if (args.size() == 1) {
    out = config_help_text();
  } else if (args.size() == 2 && args[1] == "--markdown") {
    out = config_help_markdown();
  } else if (args.size() == 2 && has_section(args[1])) {
    out = config_help_text(args[1]);
  } else if (args.size() == 2 && !args[1].empty() && args[1][0] != '-') {
    out = config_key_help(args[1]);
    if (out.empty()) return report_unknown(args[1]);
  } else {
    std::fputs("han: error: han help config takes one KEY, SECTION or --markdown (see han help config)\n", stderr);
    return 2;
  }
  std::fputs(out.c_str(), stdout);
  return 0;
}

}  // namespace han::cli
