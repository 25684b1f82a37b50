#pragma once
// Runs a shell command the way a user would, capturing exit code, stdout and stderr.
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/paths.h"

namespace han::test {

struct RunResult {
  int exit_code = -1;
  bool signalled = false;
  std::string out, err;
};

inline std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

// The last line of `text`, or "".
inline std::string last_line(const std::string& text) {
  const auto lines = lines_of(text);
  return lines.empty() ? "" : lines.back();
}

// The first n lines of text, each with its line break.
inline std::string first_lines(const std::string& text, std::size_t n) {
  std::size_t end = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t line_break = text.find('\n', end);
    if (line_break == std::string::npos) return text;
    end = line_break + 1;
  }
  return text.substr(0, end);
}

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Writes `bytes` to p as they are (no newline added).
inline void write(const std::filesystem::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary) << bytes; }

inline bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Runs `command` under bash with `input` on stdin.
inline RunResult run(const std::string& command, const std::string& input = "") {
  static int counter = 0;
  const auto dir = std::filesystem::temp_directory_path() /
                   ("han_run_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  std::filesystem::create_directories(dir);
  { std::ofstream(dir / "in", std::ios::binary) << input; }
  const std::string full = "bash -c '" + command + "' < " + (dir / "in").string() + " > " +
                           (dir / "out").string() + " 2> " + (dir / "err").string();
  const int status = std::system(full.c_str());
  RunResult r;
  r.signalled = WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) > 128);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(dir / "out");
  r.err = slurp(dir / "err");
  std::filesystem::remove_all(dir);
  return r;
}

inline std::string han_cmd(const std::string& args) { return han_binary() + " " + args; }

}  // namespace han::test
