#include "logging.h"

#include <spdlog/details/null_mutex.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "han/core/config_enums.h"
#include "han/core/error.h"
#include "option_values.h"

namespace han::cli {
namespace {

using Clock = std::chrono::steady_clock;

// Deprecation warnings waiting for setup_logging.
std::vector<std::string> g_deprecations;

// Whether a progress bar is on stderr's last line (there is one bar at a time).
bool g_bar_drawn = false;

// Held while writing to stderr: log lines and the bar may come from two threads (han
// predict answers on one thread while it reads on another).
std::mutex g_stderr_mutex;

void erase_bar() {
  if (g_bar_drawn) std::fputs("\r\033[K", stderr);
  g_bar_drawn = false;
}

// spdlog's stderr output, but a log line first erases a drawn progress bar so the two
// never share a line.
class BarAwareStderrSink : public spdlog::sinks::base_sink<spdlog::details::null_mutex> {
 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    const std::lock_guard<std::mutex> lock(g_stderr_mutex);
    spdlog::memory_buf_t line;
    formatter_->format(msg, line);
    erase_bar();
    std::fwrite(line.data(), 1, line.size(), stderr);
    std::fflush(stderr);
  }
  void flush_() override { std::fflush(stderr); }
};

}  // namespace

void name_rank_in_logs(int rank, int ranks) {
  if (ranks <= 1) return;
  spdlog::default_logger()->set_pattern("han: [rank " + std::to_string(rank) + "/" + std::to_string(ranks) + "] %v");
  // One voice: the other ranks repeat rank 0's lines, so they add only what goes wrong
  // (or everything at debug level).
  if (rank != 0 && spdlog::get_level() > spdlog::level::debug)
    spdlog::set_level(std::max(spdlog::get_level(), spdlog::level::warn));
}

void add_log_options(CLI::App& cmd, LogOptions& options) {
  cmd.add_option("--log-level", options.level,
                 "Log detail on stderr (debug: per-batch shapes and times, reading and scoring times)")
      ->check(one_of({"trace", "debug", "info", "warn", "error", "off"}))
      ->default_val("info");
  cmd.add_flag("-q,--quiet", options.quiet, "Only errors on stderr");
  cmd.add_flag("--progress", options.progress, "Draw a progress bar even when stderr is not a terminal");
}

void setup_logging(const LogOptions& options) {
  auto logger = std::make_shared<spdlog::logger>("han", std::make_shared<BarAwareStderrSink>());
  logger->set_pattern("han: %v");
  spdlog::set_default_logger(logger);
  spdlog::set_level(options.quiet ? spdlog::level::err : spdlog::level::from_str(options.level));
  for (const std::string& message : g_deprecations) spdlog::warn("warning: {}", message);
  g_deprecations.clear();
}

void warn_deprecated(std::string message) { g_deprecations.push_back(std::move(message)); }

namespace {
// Each deprecated alias and how errors name it ("--data-format (-i, --input)").
std::map<const CLI::Option*, std::string>& alias_labels() {
  static std::map<const CLI::Option*, std::string> labels;
  return labels;
}
}  // namespace

std::string deprecated_alias_label(const CLI::Option* option) {
  const auto it = alias_labels().find(option);
  return it == alias_labels().end() ? "" : it->second;
}

CLI::Option* add_deprecated_alias(CLI::App& cmd, const std::string& old_names, std::string& variable,
                                  const std::string& new_name) {
  const std::string old_name = old_names.substr(old_names.rfind(',') + 1);
  const std::string verb = cmd.get_name();
  CLI::Option* renamed = cmd.get_option(new_name);
  CLI::Option* alias = cmd.add_option(old_names, variable, "Deprecated: use " + new_name)
                           ->group("");  // hidden from --help and from completion
  // The new name's checks (main names the alias in their errors: deprecated_alias_label).
  std::string names;
  for (const std::string& n : alias->get_snames()) names += (names.empty() ? "-" : ", -") + n;
  for (const std::string& n : alias->get_lnames()) names += (names.empty() ? "--" : ", --") + n;
  alias_labels()[alias] = new_name + " (" + names + ")";
  for (int i = 0;; ++i) {
    try {
      alias->check(*renamed->get_validator(i));
    } catch (const CLI::OptionNotFound&) {
      break;
    }
  }
  // Values are checked once every argument is read, so both spellings' counts are known.
  return alias->each([verb, old_name, new_name, renamed](const std::string& value) {
    if (renamed->count() > 0) throw Error(old_name + " is the old name of " + new_name + ": pass only " + new_name);
    warn_deprecated(verb + " " + old_name + " " + value + " is deprecated; use " + new_name + " " + value);
  });
}

bool show_progress(const LogOptions& options) {
  return !options.quiet && (options.progress || ::isatty(STDERR_FILENO));
}

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const long s = std::lround(seconds);
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}

std::string format_eta(double fraction, double seconds) {
  return "ETA " + format_duration(fraction > 0 ? seconds / fraction * (1 - fraction) : -1);
}

// The first update draws at once; later ones at most every 100 ms (a bar redrawn per
// streamed line would cost more than the line).
bool ProgressBar::due() {
  const Clock::time_point now = Clock::now();
  if (g_bar_drawn && now - last_draw_ < std::chrono::milliseconds(100)) return false;
  last_draw_ = now;
  return true;
}

void ProgressBar::update(double fraction, const std::string& text) {
  const std::lock_guard<std::mutex> lock(g_stderr_mutex);
  if (!due()) return;
  constexpr int kWidth = 24;
  const double f = std::clamp(fraction, 0.0, 1.0);
  std::string bar(static_cast<std::size_t>(std::lround(f * kWidth)), '#');
  bar.resize(kWidth, ' ');
  std::fprintf(stderr, "\r[%s] %3d%% %s\033[K", bar.c_str(), static_cast<int>(f * 100), text.c_str());
  std::fflush(stderr);
  g_bar_drawn = true;
}

void ProgressBar::update(const std::string& text) {
  const std::lock_guard<std::mutex> lock(g_stderr_mutex);
  if (!due()) return;
  std::fprintf(stderr, "\r%s\033[K", text.c_str());
  std::fflush(stderr);
  g_bar_drawn = true;
}

void ProgressBar::finish() {
  const std::lock_guard<std::mutex> lock(g_stderr_mutex);
  erase_bar();
  std::fflush(stderr);
}

DocumentProgress::DocumentProgress(bool shown, std::int64_t total) : shown_(shown), total_(total) {}

void DocumentProgress::update(std::int64_t done) {
  if (!shown_) return;
  const double seconds = std::chrono::duration<double>(Clock::now() - start_).count();
  char rate[64];
  std::snprintf(rate, sizeof rate, "%.0f docs/s", static_cast<double>(done) / std::max(seconds, 1e-9));
  if (total_ <= 0) {
    bar_.update(std::to_string(done) + " documents  " + rate);
    return;
  }
  const double fraction = static_cast<double>(done) / static_cast<double>(total_);
  bar_.update(fraction, std::to_string(done) + "/" + std::to_string(total_) + " documents  " + rate + "  " +
                            format_eta(fraction, seconds));
}

CLI::Option* add_encoding_option(CLI::App& cmd, std::string& encoding, const std::string& what) {
  const CLI::Validator known(
      [](std::string& value) {
        try {
          value = to_string(parse_enum<TextEncoding>(value, "--encoding"));
          return std::string();
        } catch (const han::Error& e) {
          const std::string message = e.what(), prefix = "--encoding: ";
          return message.rfind(prefix, 0) == 0 ? message.substr(prefix.size()) : message;
        }
      },
      "", "encoding");
  return cmd
      .add_option("--encoding", encoding,
                  "How " + what +
                      " bytes are read: auto (UTF-8, and a line that is not UTF-8 as Windows-1252, with a warning), "
                      "utf-8 (strict: invalid bytes become U+FFFD), latin-1, windows-1252 (default: auto)")
      ->transform(known)
      ->type_name("NAME");
}

std::vector<std::string> with_encoding(std::vector<std::string> overrides, const std::string& encoding) {
  if (!encoding.empty()) overrides.push_back("data.encoding=" + encoding);
  return overrides;
}

}  // namespace han::cli
