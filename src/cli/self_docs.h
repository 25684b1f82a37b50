#pragma once
// What han says about itself, built from the same CLI11 options the parser uses (so none
// of it can drift from the help text): the version line, a man page, and bash/fish/zsh
// completion. `han --man` and `han --completion bash|fish|zsh` print them; the build
// installs their output.
#include <CLI/CLI.hpp>
#include <optional>
#include <string>

namespace han::cli {

// "han 0.2.0 (commit ..., portable build, kernels avx2 (picked from generic, avx2, avx512), MPI)": with_kernels_in_use
// names the variant this CPU runs (the man page, made at build time, lists them only).
std::string version_line(bool with_kernels_in_use = true);

// roff for man(1): each verb's description and its --help text.
std::string man_page(const CLI::App& app);

// A completion script for bash, fish or zsh (the bash one, loaded through bashcompinit):
// verbs, each verb's flags (not the hidden ones), and their values: the names a choice
// takes, config keys for --set, files for FILE options, folders for DIR options.
std::string completion_script(const CLI::App& app, const std::string& shell);

// Answers `han --man` and `han --completion SHELL` (before normal parsing, as these take
// no verb); nothing when argv asks for something else.
std::optional<int> answer_self_docs(const CLI::App& app, int argc, char** argv);

}  // namespace han::cli
