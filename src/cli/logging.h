#pragma once
// Logging and progress for the CLI: logs and progress go to stderr, results to stdout.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace han::cli {

struct LogOptions {
  std::string level = "info";
  bool quiet = false;
  bool progress = false;
};

// Adds --log-level, --quiet and --progress to a subcommand.
void add_log_options(CLI::App& cmd, LogOptions& options);
// Configures spdlog from the options (call at the start of a callback). A log line
// erases a progress bar drawn on stderr; the bar's next update draws it again below.
void setup_logging(const LogOptions& options);
// In a job of several ranks (mpirun), every line names its rank ("han: [rank 1/2] ...") and
// ranks other than 0 log only warnings and errors unless the level is debug or trace.
void name_rank_in_logs(int rank, int ranks);
// A deprecated spelling on the command line: "han: warning: MESSAGE" is logged by the
// next setup_logging (options are parsed before logging exists, and --quiet applies).
void warn_deprecated(std::string message);
// Declares `old_names` (e.g. "-i,--input") as a hidden, still working spelling of
// `new_name`, storing into the same variable, with the same value checks (an error names
// both); using it queues a warning naming the new one.
CLI::Option* add_deprecated_alias(CLI::App& cmd, const std::string& old_names, std::string& variable,
                                  const std::string& new_name);
// How errors name a deprecated alias ("--data-format (-i, --input)"); "" for another option.
// CLI11 names a hidden option "" in its own errors.
std::string deprecated_alias_label(const CLI::Option* option);
// Adds --encoding NAME (how input bytes are read: auto, utf-8, latin-1, windows-1252, or
// another name of one of them), stored in `encoding` as its canonical name. `what` says
// what it reads. A bad name is refused while parsing, naming the option and the choices.
CLI::Option* add_encoding_option(CLI::App& cmd, std::string& encoding, const std::string& what);
// The config overrides with --encoding's as data.encoding (none when not given).
std::vector<std::string> with_encoding(std::vector<std::string> overrides, const std::string& encoding);
// Whether to draw a progress bar: --progress, or stderr is a terminal (and not --quiet).
bool show_progress(const LogOptions& options);

// A one-line progress bar redrawn in place on stderr, at most ten times a second. There
// is one at a time; it is erased when it goes out of scope (an error message that follows
// gets a line of its own).
class ProgressBar {
 public:
  ProgressBar() = default;
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;
  ~ProgressBar() { finish(); }
  void update(double fraction, const std::string& text);  // [####    ]  42% text
  void update(const std::string& text);                   // text alone: no known end
  void finish();  // erases the line if anything was drawn

 private:
  bool due();
  std::chrono::steady_clock::time_point last_draw_{};
};

// Progress through a known or unknown number of documents (eval, predict):
// "[###  ] 12% 240/2000 documents  3400 docs/s  ETA 0:01", or without a total
// "240 documents  3400 docs/s". Draws nothing unless `shown`.
class DocumentProgress {
 public:
  DocumentProgress(bool shown, std::int64_t total);  // total 0: unknown
  void update(std::int64_t done);
  void finish() { bar_.finish(); }

 private:
  bool shown_;
  std::int64_t total_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  ProgressBar bar_;
};

std::string format_duration(double seconds);
// "ETA 1:02" for a task `fraction` done after `seconds`.
std::string format_eta(double fraction, double seconds);

}  // namespace han::cli
