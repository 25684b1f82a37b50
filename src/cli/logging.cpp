#include "logging.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>

#include "han/core/error.h"

namespace han::cli {

void add_log_options(CLI::App& cmd, LogOptions& options) {
  cmd.add_option("--log-level", options.level, "Log detail on stderr")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}))
      ->default_val("info");
  cmd.add_flag("-q,--quiet", options.quiet, "Only errors on stderr");
  cmd.add_flag("--progress", options.progress, "Draw a progress bar even when stderr is not a terminal");
}

void setup_logging(const LogOptions& options) {
  auto logger = spdlog::stderr_logger_st("han");
  logger->set_pattern("han: %v");
  spdlog::set_default_logger(logger);
  spdlog::set_level(options.quiet ? spdlog::level::err : spdlog::level::from_str(options.level));
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

void ProgressBar::update(double fraction, const std::string& text) {
  constexpr int kWidth = 24;
  const int filled = static_cast<int>(std::lround(std::clamp(fraction, 0.0, 1.0) * kWidth));
  std::string bar(filled, '#');
  bar.resize(kWidth, ' ');
  std::fprintf(stderr, "\r[%s] %3d%% %s\033[K", bar.c_str(), static_cast<int>(fraction * 100), text.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressBar::finish() {
  if (drawn_) std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace han::cli
