#pragma once
// One function per subcommand: each adds its options to the app and sets its callback.
#include <CLI/CLI.hpp>

namespace han::cli {

void add_train_command(CLI::App& app);
void add_predict_command(CLI::App& app);
void add_eval_command(CLI::App& app);
void add_info_command(CLI::App& app);
void add_ablate_command(CLI::App& app);

}  // namespace han::cli
