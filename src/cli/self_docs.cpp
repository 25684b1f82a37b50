#include "self_docs.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>
#include <vector>

#include "config_help.h"
#include "han/core/config.h"
#include "option_values.h"
#include "han/nn/kernels.h"
#include "han/train/collective.h"
#include "han_build_info.h"

namespace han::cli {
namespace {

// A line of help text as roff: backslashes escaped, and a leading '.' or '\'' kept literal.
std::string roff_line(const std::string& line) {
  std::string out;
  for (char c : line) out += c == '\\' ? std::string("\\e") : std::string(1, c);
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out = "\\&" + out;
  return out;
}

std::string roff_block(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line)) out += roff_line(line) + "\n";
  return out;
}

// Every flag a verb accepts, long and short, as typed ("--model", "-m"); not the hidden
// ones (deprecated spellings, which still work but are not offered).
std::vector<std::string> flags_of(const CLI::App& verb) {
  std::set<std::string> flags = {"--help"};
  for (const CLI::Option* o : verb.get_options()) {
    if (o->get_positional() || o->get_group().empty()) continue;
    for (const std::string& n : o->get_lnames()) flags.insert("--" + n);
    for (const std::string& n : o->get_snames()) flags.insert("-" + n);
  }
  return {flags.begin(), flags.end()};
}

std::string joined(const std::vector<std::string>& words, const std::string& separator = " ") {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : separator) + w;
  return out;
}

// What an option's value is, for completion: read from its type name ("FILE", "DIR",
// "KEY=VALUE", "TEXT:{tsv,json,html}").
struct ValueKind {
  enum { flag, choice, file, dir, config_key, other } kind;
  std::vector<std::string> names;  // choice
};

ValueKind value_kind(const CLI::Option& o) {
  if (o.get_items_expected_min() == 0) return {ValueKind::flag, {}};
  const std::string type = o.get_type_name();
  std::vector<std::string> names = names_in_type(type);
  if (!names.empty()) return {ValueKind::choice, names};
  if (type == "KEY=VALUE") return {ValueKind::config_key, {}};
  if (type == "DIR") return {ValueKind::dir, {}};
  if (type.find("FILE") != std::string::npos || type == "PATH" || type == "MODEL") return {ValueKind::file, {}};
  return {ValueKind::other, {}};
}

// The options of a verb that take a value, not the hidden ones.
std::vector<const CLI::Option*> valued_options(const CLI::App& verb) {
  std::vector<const CLI::Option*> out;
  for (const CLI::Option* o : verb.get_options())
    if (!o->get_positional() && !o->get_group().empty() && value_kind(*o).kind != ValueKind::flag) out.push_back(o);
  return out;
}

// "-f|--format" (bash case pattern).
std::string case_pattern(const CLI::Option& o) {
  std::vector<std::string> names;
  for (const std::string& n : o.get_snames()) names.push_back("-" + n);
  for (const std::string& n : o.get_lnames()) names.push_back("--" + n);
  return joined(names, "|");
}

// The values a config key takes, when they are a few names (a choice, a boolean).
std::vector<std::string> key_values(const ConfigKey& k) {
  if (k.type == "boolean") return {"true", "false"};
  if (k.type != "choice") return {};
  std::vector<std::string> out;
  std::string current;
  for (const char c : k.allowed + "|") {
    if (c != '|') {
      current += c;
      continue;
    }
    if (!current.empty()) out.push_back(current);
    current.clear();
  }
  return out;
}

std::vector<std::string> config_sections() {
  std::vector<std::string> out;
  for (const ConfigKey& k : config_keys())
    if (std::find(out.begin(), out.end(), k.section) == out.end()) out.push_back(k.section);
  return out;
}

const std::vector<std::string> kShells = {"bash", "fish", "zsh"};

// The top-level flags han answers before any verb.
std::vector<std::string> top_flags(const CLI::App& app) {
  std::vector<std::string> out = flags_of(app);
  out.insert(out.end(), {"--man", "--completion"});
  return out;
}

std::string bash_completion(const CLI::App& app, const std::string& shell) {
  std::vector<std::string> verbs;
  for (const CLI::App* verb : app.get_subcommands({})) verbs.push_back(verb->get_name());
  std::string keys, keys_assigned, key_cases;
  for (const ConfigKey& k : config_keys()) {
    keys += (keys.empty() ? "" : " ") + k.path();
    keys_assigned += (keys_assigned.empty() ? "" : " ") + k.path() + "=";
    const std::vector<std::string> values = key_values(k);
    if (!values.empty()) key_cases += "        " + k.path() + ") values=\"" + joined(values) + "\" ;;\n";
  }
  std::string cases;
  for (const CLI::App* verb : app.get_subcommands({})) {
    cases += "    " + verb->get_name() + ")\n      flags=\"" + joined(flags_of(*verb)) + "\"\n      case $option in\n";
    for (const CLI::Option* o : valued_options(*verb)) {
      const ValueKind v = value_kind(*o);
      cases += "        " + case_pattern(*o) + ") ";
      switch (v.kind) {
        case ValueKind::choice: cases += "values=\"" + joined(v.names) + "\""; break;
        case ValueKind::file: cases += "kind=file"; break;
        case ValueKind::dir: cases += "kind=dir"; break;
        case ValueKind::config_key: cases += "kind=key"; break;
        default: cases += "kind=none"; break;  // a number or a name: nothing to offer
      }
      cases += " ;;\n";
    }
    cases += "      esac ;;\n";
  }
  std::string out = shell == "zsh" ? "autoload -U +X bashcompinit && bashcompinit\n" : "";
  out += "# han completion (generated by `han --completion " + shell + "`)\n"
         "_han() {\n"
         "  local c=$COMP_CWORD cur=${COMP_WORDS[COMP_CWORD]} option= key= kind= values= flags\n"
         "  # bash splits \"--format=js\" and \"--set model.mask=re\" at '=': find the option (and key) again\n"
         "  if [[ $cur == = ]]; then\n"
         "    cur=; option=${COMP_WORDS[c-2]}; key=${COMP_WORDS[c-1]}\n"
         "  elif [[ ${COMP_WORDS[c-1]} == = ]]; then\n"
         "    option=${COMP_WORDS[c-3]}; key=${COMP_WORDS[c-2]}\n"
         "  else\n"
         "    option=${COMP_WORDS[c-1]}\n"
         "  fi\n"
         "  if [[ $option == -s || $option == --set ]] && [[ -n $key ]]; then\n"
         "    case $key in\n" + key_cases +
         "    esac\n"
         "    COMPREPLY=($(compgen -W \"$values\" -- \"$cur\"))\n"
         "    return\n"
         "  fi\n"
         "  [[ -n $key ]] && option=$key  # --format=js\n"
         "  if [ \"$c\" -eq 1 ]; then\n"
         "    COMPREPLY=($(compgen -W \"" + joined(verbs) + " help " + joined(top_flags(app)) + "\" -- \"$cur\"))\n"
         "    return\n"
         "  fi\n"
         "  case ${COMP_WORDS[1]} in\n" + cases +
         "    help)\n"
         "      if [ \"$c\" -eq 2 ]; then values=\"" + joined(verbs) + " config\"\n"
         "      elif [ \"$c\" -eq 3 ] && [ \"${COMP_WORDS[2]}\" = config ]; then values=\"" + joined(config_sections()) +
         " " + keys + "\"\n"
         "      fi\n"
         "      COMPREPLY=($(compgen -W \"$values\" -- \"$cur\")); return ;;\n"
         "    --completion) [ \"$c\" -eq 2 ] && COMPREPLY=($(compgen -W \"" + joined(kShells) + "\" -- \"$cur\")); return ;;\n"
         "    -*) return ;;\n"
         "  esac\n"
         "  if [[ -n $values ]]; then\n"
         "    COMPREPLY=($(compgen -W \"$values\" -- \"$cur\"))\n"
         "  elif [[ $kind == file ]]; then\n"
         "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
         "  elif [[ $kind == dir ]]; then\n"
         "    COMPREPLY=($(compgen -d -- \"$cur\"))\n"
         "  elif [[ $kind == key ]]; then\n"
         "    COMPREPLY=($(compgen -W \"" + keys_assigned + "\" -- \"$cur\"))\n"
         "    type compopt >/dev/null 2>&1 && compopt -o nospace\n"
         "  elif [[ $kind == none ]]; then\n"
         "    COMPREPLY=()\n"
         "  elif [[ $cur == -* ]]; then\n"
         "    COMPREPLY=($(compgen -W \"$flags\" -- \"$cur\"))\n"
         "  else\n"
         "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
         "  fi\n"
         "}\n"
         "complete -o filenames -F _han han\n";
  return out;
}

// Text between single quotes in fish: \\ and \' escaped.
std::string fish_quoted(const std::string& text) {
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("\\'") : c == '\\' ? std::string("\\\\") : std::string(1, c);
  return out + "'";
}

// An option's help up to its first ';' or '(' : fish shows it beside the flag.
std::string short_description(const std::string& text) {
  std::string out = text.substr(0, text.find_first_of(";("));
  while (!out.empty() && (out.back() == ' ' || out.back() == ',')) out.pop_back();
  return out;
}

std::string fish_completion(const CLI::App& app) {
  std::vector<std::string> verbs;
  for (const CLI::App* verb : app.get_subcommands({})) verbs.push_back(verb->get_name());
  std::string keys_assigned, keys;
  for (const ConfigKey& k : config_keys()) {
    keys_assigned += (keys_assigned.empty() ? "" : " ") + k.path() + "=";
    keys += (keys.empty() ? "" : " ") + k.path();
  }
  std::string out = "# han completion for fish (generated by `han --completion fish`)\n"
                    "complete -c han -f\n"
                    "complete -c han -n __fish_use_subcommand -s h -l help -d 'Print help'\n"
                    "complete -c han -n __fish_use_subcommand -s V -l version -d 'Print the version'\n"
                    "complete -c han -n __fish_use_subcommand -l man -d 'Print the manual page'\n"
                    "complete -c han -n __fish_use_subcommand -l completion -x -a " + fish_quoted(joined(kShells)) +
                    " -d 'Print shell completion'\n"
                    "complete -c han -n __fish_use_subcommand -a help -d 'The help of a command, or the config keys'\n";
  for (const CLI::App* verb : app.get_subcommands({}))
    out += "complete -c han -n __fish_use_subcommand -a " + verb->get_name() + " -d " +
           fish_quoted(short_description(verb->get_description())) + "\n";
  out += "complete -c han -n '__fish_seen_subcommand_from help; and not __fish_seen_subcommand_from config " +
         joined(verbs) + "' -a " + fish_quoted(joined(verbs) + " config") + "\n";
  out += "complete -c han -n '__fish_seen_subcommand_from help; and __fish_seen_subcommand_from config' -a " +
         fish_quoted(joined(config_sections()) + " " + keys) + "\n";
  for (const CLI::App* verb : app.get_subcommands({})) {
    const std::string when = "-n '__fish_seen_subcommand_from " + verb->get_name() + "; and not __fish_seen_subcommand_from help'";
    // Positional arguments are files (train's data, predict's documents).
    for (const CLI::Option* o : verb->get_options())
      if (o->get_positional()) {
        out += "complete -c han " + when + " -F\n";
        break;
      }
    for (const CLI::Option* o : verb->get_options()) {
      if (o->get_positional() || o->get_group().empty()) continue;
      std::string line = "complete -c han " + when;
      for (const std::string& n : o->get_snames()) line += " -s " + n;
      for (const std::string& n : o->get_lnames()) line += " -l " + n;
      const ValueKind v = value_kind(*o);
      switch (v.kind) {
        case ValueKind::flag: break;
        case ValueKind::choice: line += " -x -a " + fish_quoted(joined(v.names)); break;
        case ValueKind::file: line += " -r -F"; break;
        case ValueKind::dir: line += " -x -a '(__fish_complete_directories)'"; break;
        case ValueKind::config_key: line += " -x -a " + fish_quoted(keys_assigned); break;
        case ValueKind::other: line += " -x"; break;
      }
      out += line + " -d " + fish_quoted(short_description(o->get_description())) + "\n";
    }
  }
  return out;
}

}  // namespace

std::string version_line(bool with_kernels_in_use) {
  // The kernels in use depend on the CPU han runs on (portable builds), not on the build.
  const std::string all = kernel_variants();
  const std::string used = active_kernels().name;
  const std::string kernels = all == used ? "kernels " + used
                              : with_kernels_in_use ? "kernels " + used + " (picked from " + all + ")"
                                                    : "kernels " + all + " (picked at start-up)";
  const std::string gemm = with_kernels_in_use ? std::string(", GEMM ") + gemm_in_use() : "";
  return std::string("han ") + HAN_VERSION + " (commit " + HAN_COMMIT + ", " + HAN_BUILD + ", " + kernels + gemm + (built_with_mpi() ? ", MPI)" : ", no MPI)");
}

std::string man_page(const CLI::App& app) {
  std::string out = ".TH HAN 1 \"\" \"han " HAN_VERSION "\" \"User Commands\"\n";
  out += ".SH NAME\nhan \\- " + roff_line(app.get_description().substr(app.get_description().find(':') + 2)) + "\n";
  out += ".SH SYNOPSIS\n.B han\n\\fIVERB\\fR [\\fIOPTIONS\\fR]\n.br\n.B han help\n\\fIVERB\\fR\n.br\n"
         ".B han help config\n[\\fIKEY\\fR|\\fISECTION\\fR]\n";
  // NAME holds the one-line description; this says what NAME cannot.
  out += ".SH DESCRIPTION\n"
         "han trains Hierarchical Attention Networks (Yang et al., NAACL 2016) and classifies documents with "
         "them: word attention builds each sentence, sentence attention builds the document. Results go to stdout; "
         "logs, progress bars and errors (one line, han: error: ...) go to stderr. "
         "han \\-\\-completion bash|fish|zsh prints shell completion.\n";
  out += ".SH COMMANDS\n";
  for (const CLI::App* verb : app.get_subcommands({})) {
    // The verb's --help text opens with its description.
    out += ".SS han " + verb->get_name() + "\n.nf\n" + roff_block(verb->help("han")) + ".fi\n";
  }
  // The same table as docs/commands.md, "Exit codes".
  out += ".SH EXIT STATUS\n0 success; 2 bad usage, config or input (the one-line message names the file, line or "
         "key); 1 any other failure: I/O, a diverging run; 130 or 143 train, ablate or embed stopped by SIGINT or "
         "SIGTERM, after one line saying what was kept and how to continue.\n";
  out += ".SH VERSION\n" + roff_line(version_line(false)) + "\n";
  out += ".SH CONFIGURATION\nA config file (han train --config FILE) is a JSON object of sections; "
         "--set SECTION.KEY=VALUE sets one key. han help config prints these keys, han help config KEY one of them.\n" +
         config_help_roff();
  // The guides are installed under the same prefix as han (cmake --install --prefix).
  out += ".SH SEE ALSO\nhan help config; han help VERB; the guides installed with han in share/doc/han beside its "
         "bin folder: /usr/share/doc/han for the Debian package, /usr/local/share/doc/han for cmake \\-\\-install "
         "(README.md, docs/: data formats, tasks, recipes, performance).\n";
  return out;
}

std::string completion_script(const CLI::App& app, const std::string& shell) {
  return shell == "fish" ? fish_completion(app) : bash_completion(app, shell);
}

std::optional<int> answer_self_docs(const CLI::App& app, int argc, char** argv) {
  if (argc < 2) return std::nullopt;
  const std::string first = argv[1];
  if (first == "--man" && argc == 2) {
    std::fputs(man_page(app).c_str(), stdout);
    return 0;
  }
  if (first != "--completion") return std::nullopt;
  const std::string shell = argc >= 3 ? argv[2] : "";
  if (argc != 3 || std::find(kShells.begin(), kShells.end(), shell) == kShells.end()) {
    std::fputs("han: error: --completion takes one shell: bash, fish or zsh (see han --help)\n", stderr);
    return 2;
  }
  std::fputs(completion_script(app, shell).c_str(), stdout);
  return 0;
}

}  // namespace han::cli
