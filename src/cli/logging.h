#pragma once
// Logging and progress for the CLI: logs and progress go to stderr, results to stdout.
#include <string>

#include <CLI/CLI.hpp>

namespace han::cli {

struct LogOptions {
  std::string level = "info";
  bool quiet = false;
  bool progress = false;
};

// Adds --log-level, --quiet and --progress to a subcommand.
void add_log_options(CLI::App& cmd, LogOptions& options);
// Configures spdlog from the options (call at the start of a callback).
void setup_logging(const LogOptions& options);
// Whether to draw a progress bar: --progress, or stderr is a terminal (and not --quiet).
bool show_progress(const LogOptions& options);

// A one-line progress bar redrawn in place on stderr.
class ProgressBar {
 public:
  void update(double fraction, const std::string& text);
  void finish();  // ends the line if anything was drawn

 private:
  bool drawn_ = false;
};

std::string format_duration(double seconds);

}  // namespace han::cli
