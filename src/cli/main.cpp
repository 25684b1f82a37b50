// han: a Hierarchical Attention Network document classifier.
// main() only dispatches; each subcommand lives in its own cmd_<verb>.cpp.
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "commands.h"
#include "config_help.h"
#include "ranks.h"
#include "self_docs.h"
#include "serve_run.h"
#include "han/core/config.h"
#include "han/core/error.h"
#include "han/core/json_text.h"
#include "han/core/malloc_tuning.h"
#include "han/core/suggest.h"
#include "han/nn/gemm_profile.h"
#include "han/nn/kernels.h"
#include "logging.h"
#include "option_values.h"

namespace {

std::vector<const CLI::App*> verbs(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App*) { return true; });
}

// The verb named `name`, or null (CLI11's get_subcommand throws for an unknown name).
const CLI::App* find_verb(const CLI::App& app, const std::string& name) {
  for (const CLI::App* sub : verbs(app))
    if (sub->get_name() == name) return sub;
  return nullptr;
}

// "train, predict, ..." and the (compared, shown) pairs the did-you-mean helper takes.
std::string verb_list(const CLI::App& app, std::vector<std::pair<std::string, std::string>>& names) {
  std::string out;
  for (const CLI::App* sub : verbs(app)) {
    out += (out.empty() ? "" : ", ") + sub->get_name();
    names.emplace_back(sub->get_name(), sub->get_name());
  }
  return out;
}

// The flags of `app` as typed ("--top-k", "-k"), as (compared, shown) pairs for the
// did-you-mean helper; hidden ones (deprecated spellings) are left out.
std::vector<std::pair<std::string, std::string>> flag_names(const CLI::App& app) {
  std::vector<std::pair<std::string, std::string>> names;
  for (const CLI::Option* o : app.get_options()) {
    if (o->get_positional() || o->get_group().empty()) continue;
    for (const std::string& n : o->get_lnames()) names.emplace_back("--" + n, "--" + n);
    for (const std::string& n : o->get_snames()) names.emplace_back("-" + n, "-" + n);
  }
  return names;
}

// "han: error: unknown option --topk; did you mean --top-k? (see han predict --help)";
// `hint` replaces the did-you-mean when given. Returns the exit status.
int report_unknown_option(const CLI::App& app, const std::string& typed, const std::string& hint,
                          const std::string& help) {
  std::string said = hint;
  if (said.empty() && typed.rfind("--", 0) == 0) {  // not for one letter: any other is as close
    std::vector<std::pair<std::string, std::string>> names = flag_names(app);
    if (!app.get_parent()) names.insert(names.end(), {{"--man", "--man"}, {"--completion", "--completion"}});
    const std::vector<std::string> close = han::closest_names(typed, names);
    for (std::size_t i = 0; i < close.size(); ++i) said += (i == 0 ? "; did you mean " : " or ") + close[i];
    if (!close.empty()) said += "?";
  }
  std::fprintf(stderr, "han: error: unknown option %s%s (see %s)\n", typed.c_str(), said.c_str(), help.c_str());
  return 2;
}

// Verbs are checked before CLI11 parses: it reports a typo as "A subcommand is required",
// and would treat "help" as a stray argument. So are options before the verb: han's own
// (--help, --version) or unknown. Returns an exit code when the run ends here.
std::optional<int> answer_verb(const CLI::App& app, int argc, char** argv) {
  if (argc < 2) {
    std::vector<std::pair<std::string, std::string>> names;
    std::fprintf(stderr, "han: error: no command given; the commands are %s (see han --help)\n",
                 verb_list(app, names).c_str());
    return 2;
  }
  if (argv[1][0] == '-') {
    const std::string option = std::string(argv[1]).substr(0, std::string(argv[1]).find('='));
    if (option == "--" || app.get_option_no_throw(option) || option == "--man" || option == "--completion")
      return std::nullopt;
    return report_unknown_option(app, option, "", "han --help");
  }
  std::string verb = argv[1];
  const bool help = verb == "help";
  if (help) {
    if (argc == 2) {
      std::fputs(app.help().c_str(), stdout);
      return 0;
    }
    if (const std::optional<int> status = han::cli::answer_help_config({argv + 2, argv + argc})) return status;
    verb = argv[2];
  }
  if (const CLI::App* sub = find_verb(app, verb)) {
    if (!help) return std::nullopt;
    std::fputs(sub->help(app.get_name()).c_str(), stdout);
    return 0;
  }
  std::vector<std::pair<std::string, std::string>> names;
  const std::string list = verb_list(app, names);
  std::fprintf(stderr, "han: error: unknown command \"%s\"%s; the commands are %s (see han --help)\n",
               verb.c_str(), han::suggestion(verb, names).c_str(), list.c_str());
  return 2;
}

// The config key a flag names ("epochs": trainer.epochs, but embed.epochs for han embed,
// a verb's own section first), or "".
std::string key_named(const std::string& name, const std::string& verb) {
  std::string found;
  for (const std::string& path : han::config_key_paths()) {
    if (path != name && path.substr(path.find('.') + 1) != name) continue;
    if (found.empty() || path.substr(0, path.find('.')) == verb) found = path;
  }
  return found;
}

// `han train --epochs 3`: config keys are not flags; name the --set that does it (for
// every verb that takes --set). `i`: where the unknown flag is in argv.
std::string config_flag_hint(const CLI::App& verb, int i, int argc, char** argv) {
  if (!verb.get_option_no_throw("--set")) return "";
  const std::string arg = argv[i];
  if (arg.rfind("--", 0) != 0 || arg.size() < 3) return "";
  std::string name = arg.substr(2, arg.find('=') - 2);
  std::replace(name.begin(), name.end(), '-', '_');
  const std::string path = key_named(name, verb.get_name());
  if (path.empty()) return "";
  const std::size_t eq = arg.find('=');
  const std::string value = eq != std::string::npos ? arg.substr(eq + 1) : i + 1 < argc ? argv[i + 1] : "VALUE";
  return "; config keys are set with --set, as in --set " + path + "=" + value;
}

bool takes_value(const CLI::Option& o) { return o.get_items_expected_min() > 0; }

// The first flag after the verb that the verb does not have, as typed ("--topk", "-Z"),
// and where it is in argv; -1 when every flag is known. Values of options are skipped,
// as are "-" (stdin), negative numbers and everything after "--".
std::pair<std::string, int> unknown_flag(const CLI::App& verb, int argc, char** argv) {
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") break;
    if (arg.size() < 2 || arg[0] != '-' || std::isdigit(static_cast<unsigned char>(arg[1])) || arg[1] == '.')
      continue;
    if (arg[1] == '-') {
      const std::string name = arg.substr(0, arg.find('='));
      const CLI::Option* o = verb.get_option_no_throw(name);
      if (!o) return {name, i};
      if (takes_value(*o) && arg.find('=') == std::string::npos) ++i;
      continue;
    }
    for (std::size_t j = 1; j < arg.size(); ++j) {  // -qe: -q -e; -k2: -k 2
      const CLI::Option* o = verb.get_option_no_throw(std::string("-") + arg[j]);
      if (!o) return {j == 1 ? arg : std::string("-") + arg[j], i};
      if (!takes_value(*o)) continue;
      if (j + 1 == arg.size()) ++i;
      break;
    }
  }
  return {"", -1};
}

// An unknown flag after a verb, named before CLI11 parses (which would first complain
// about a missing --model, or call it "not expected"); nothing when every flag is known.
std::optional<int> answer_unknown_flag(const CLI::App& app, int argc, char** argv) {
  const CLI::App* verb = argc >= 2 ? find_verb(app, argv[1]) : nullptr;
  if (!verb) return std::nullopt;
  const auto [typed, at] = unknown_flag(*verb, argc, argv);
  if (at < 0) return std::nullopt;
  return report_unknown_option(*verb, typed, config_flag_hint(*verb, at, argc, argv), "han " + verb->get_name() + " --help");
}

// CLI11 names a hidden option (a deprecated spelling) "" in its errors: the label of the
// one on the command line, followed by ": ", or "" (its value checks name it themselves).
std::string hidden_option_label(const CLI::App& app, int argc, char** argv) {
  const CLI::App* verb = argc >= 2 ? find_verb(app, argv[1]) : nullptr;
  if (!verb) return "";
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") break;
    if (arg.size() < 2 || arg[0] != '-') continue;
    const CLI::Option* o = verb->get_option_no_throw(arg.substr(0, arg[1] == '-' ? arg.find('=') : 2));
    if (!o || !o->get_group().empty()) continue;
    const std::string label = han::cli::deprecated_alias_label(o);
    if (!label.empty()) return label + ": ";
  }
  return "";
}

// "see han train --help" when the error is inside a verb's arguments.
std::string help_hint(const CLI::App& app, int argc, char** argv) {
  const CLI::App* sub = argc >= 2 ? find_verb(app, argv[1]) : nullptr;
  return sub ? "han " + sub->get_name() + " --help" : "han --help";
}

// "-m=model.han" as "-m model.han": CLI11 would take "=model.han" as the value.
std::vector<std::string> split_short_assignments(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string a = args[i];
    if (a == "--") break;
    if (a.size() > 3 && a[0] == '-' && std::isalpha(static_cast<unsigned char>(a[1])) && a[2] == '=') {
      args[i] = a.substr(0, 2);
      args.insert(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, a.substr(3));
      ++i;
    }
  }
  return args;
}

}  // namespace

int main(int raw_argc, char** raw_argv) {
  han::tune_malloc_for_batches();
  han::cli::remember_command_line(raw_argc, raw_argv);  // han serve hands it on to han-serve
  try {
    han::active_kernels();  // picked once, here, so that a bad HAN_CPU or HAN_GEMM is one line before anything runs
    han::gemm_in_use();
    han::gemm_profile_on();  // a bad HAN_GEMM_PROFILE too
  } catch (const han::Error& e) {
    std::fprintf(stderr, "han: error: %s\n", e.what());
    return e.exit_code();
  }
  std::vector<std::string> args = split_short_assignments(raw_argc, raw_argv);
  std::vector<char*> arg_pointers;
  for (std::string& a : args) arg_pointers.push_back(a.data());
  const int argc = static_cast<int>(arg_pointers.size());
  char** argv = arg_pointers.data();
  CLI::App app{"han: document classification with Hierarchical Attention Networks (Yang et al., 2016)"};
  app.name("han");
  app.set_version_flag("-V,--version", han::cli::version_line());
  app.require_subcommand(1);
  han::cli::add_train_command(app);
  han::cli::add_predict_command(app);
  han::cli::add_eval_command(app);
  han::cli::add_info_command(app);
  han::cli::add_ablate_command(app);
  han::cli::add_embed_command(app);
  han::cli::add_prepare_command(app);
  han::cli::add_serve_command(app);
  // Set after the verbs, which would otherwise inherit it.
  app.footer("Also: han help config [KEY] (the configuration keys), han --man (the manual page),\n"
             "han --completion bash|fish|zsh (shell completion).");
  if (const std::optional<int> status = han::cli::answer_self_docs(app, argc, argv)) return *status;
  if (const std::optional<int> status = answer_verb(app, argc, argv)) return *status;
  try {
    han::cli::require_one_rank_unless_train(argc, argv);
    if (const std::optional<int> status = answer_unknown_flag(app, argc, argv)) return *status;
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const han::cli::CommandExit& e) {
    return e.code;
  } catch (const CLI::ParseError& e) {
    std::string what = e.what();
    if (what.rfind(": ", 0) == 0) what = hidden_option_label(app, argc, argv) + what.substr(2);
    // "Could not convert: --top-k = abc": a number was expected.
    const std::string unconverted = "Could not convert: ";
    const std::size_t equals = what.find(" = ");
    if (what.rfind(unconverted, 0) == 0 && equals != std::string::npos)
      what = what.substr(unconverted.size(), equals - unconverted.size()) + ": expected a number, got " +
             han::quote_excerpt(what.substr(equals + 3));
    // "--model: 1 required FILE|DIR missing": the option ended the command line.
    const std::size_t required = what.find(": 1 required ");
    if (required != std::string::npos && what.size() > 8 && what.compare(what.size() - 8, 8, " missing") == 0) {
      const std::string type = what.substr(required + 13, what.size() - 8 - required - 13);
      std::string values;
      for (const std::string& name : han::cli::names_in_type(type)) values += (values.empty() ? "" : ", ") + name;
      what = what.substr(0, required) + ": needs a value" + (values.empty() ? " (" + type + ")" : ": one of " + values);
    }
    std::fprintf(stderr, "han: error: %s (see %s)\n", what.c_str(), help_hint(app, argc, argv).c_str());
    return 2;
  } catch (const han::Error& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "han: error: %s\n", e.what());
    return e.exit_code();
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "han: error: out of memory\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "han: error: %s\n", e.what());
    return 1;
  }
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {  // e.g. han info > /dev/full
    std::fprintf(stderr, "han: error: cannot write output: %s\n", std::strerror(errno));
    return 1;
  }
  return 0;
}
