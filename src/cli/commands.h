#pragma once
// One function per subcommand: each adds its options to the app and sets its callback.
#include <CLI/CLI.hpp>

namespace han::cli {

// Thrown by a command that has already told the user what happened and must end with
// `code` (e.g. 128 + signal after an interrupted run printed how to resume): main
// returns the code and prints nothing more. Commands never call std::exit.
struct CommandExit {
  int code;
};

void add_train_command(CLI::App& app);
void add_predict_command(CLI::App& app);
void add_eval_command(CLI::App& app);
void add_info_command(CLI::App& app);
void add_ablate_command(CLI::App& app);
void add_embed_command(CLI::App& app);
void add_prepare_command(CLI::App& app);
void add_serve_command(CLI::App& app);

}  // namespace han::cli
