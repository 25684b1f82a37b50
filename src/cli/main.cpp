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
#include "han/core/config.h"
#include "han/core/error.h"
#include "han/core/malloc_tuning.h"
#include "han/core/suggest.h"
#include "han/nn/kernels.h"

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

// Verbs are checked before CLI11 parses: it reports a typo as "A subcommand is required",
// and would treat "help" as a stray argument. Returns an exit code when the run ends here.
std::optional<int> answer_verb(const CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return std::nullopt;
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
// every verb that takes --set).
std::string config_flag_hint(const CLI::App& app, int argc, char** argv) {
  const CLI::App* verb = argc >= 2 ? find_verb(app, argv[1]) : nullptr;
  if (!verb || !verb->get_option_no_throw("--set")) return "";
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0 || arg.size() < 3) continue;
    std::string name = arg.substr(2, arg.find('=') - 2);
    if (verb->get_option_no_throw("--" + name)) continue;
    std::replace(name.begin(), name.end(), '-', '_');
    const std::string path = key_named(name, verb->get_name());
    if (path.empty()) continue;
    const std::size_t eq = arg.find('=');
    const std::string value = eq != std::string::npos ? arg.substr(eq + 1) : i + 1 < argc ? argv[i + 1] : "VALUE";
    return "; config keys are set with --set, as in --set " + path + "=" + value;
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
  try {
    han::active_kernels();  // picked once, here, so that a bad HAN_CPU is one line before anything runs
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
  app.set_version_flag("--version", han::cli::version_line());
  app.require_subcommand(1);
  han::cli::add_train_command(app);
  han::cli::add_predict_command(app);
  han::cli::add_eval_command(app);
  han::cli::add_info_command(app);
  han::cli::add_ablate_command(app);
  han::cli::add_embed_command(app);
  han::cli::add_prepare_command(app);
  // Set after the verbs, which would otherwise inherit it.
  app.footer("Also: han help config [KEY] (the configuration keys), han --man (the manual page),\n"
             "han --completion bash|zsh (shell completion).");
  if (const std::optional<int> status = han::cli::answer_self_docs(app, argc, argv)) return *status;
  if (const std::optional<int> status = answer_verb(app, argc, argv)) return *status;
  try {
    han::cli::require_one_rank_unless_train(argc, argv);
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
    std::fprintf(stderr, "han: error: %s%s (see %s)\n", e.what(), config_flag_hint(app, argc, argv).c_str(),
                 help_hint(app, argc, argv).c_str());
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
