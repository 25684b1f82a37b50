#pragma once
// What han says about itself, built from the same CLI11 options the parser uses (so none
// of it can drift from the help text): the version line, a man page, and bash/zsh
// completion. `han --man` and `han --completion bash|zsh` print them; the build installs
// their output.
#include <CLI/CLI.hpp>
#include <optional>
#include <string>

namespace han::cli {

// "han 0.2.0 (commit ..., portable build, kernels avx2 (picked from generic, avx2, avx512), MPI)": with_kernels_in_use
// names the variant this CPU runs (the man page, made at build time, lists them only).
std::string version_line(bool with_kernels_in_use = true);

// roff for man(1): each verb's description and its --help text.
std::string man_page(const CLI::App& app);

// A bash completion script (zsh: the same, loaded through bashcompinit) completing verbs,
// each verb's flags, and file names for their values.
std::string completion_script(const CLI::App& app, const std::string& shell);

// Answers `han --man` and `han --completion SHELL` (before normal parsing, as these take
// no verb); nothing when argv asks for something else.
std::optional<int> answer_self_docs(const CLI::App& app, int argc, char** argv);

}  // namespace han::cli
