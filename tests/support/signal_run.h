#pragma once
// Interrupting han as a user does with Ctrl-C or kill: the command runs in the background
// until its stderr shows a marker (a log line that says which phase it is in), then gets
// the signal. Inputs that keep a phase busy for seconds are the bundled data repeated.
#include <string>

#include "support/paths.h"
#include "support/run.h"

namespace han::test {

// Runs `han han_args` with stderr into `err_file`; once that file holds `marker` (at
// most 60 s), sends `signal` (INT, TERM), then waits for han to end. The result holds
// han's stdout, stderr and exit code.
inline RunResult run_and_signal(const std::string& han_args, const std::string& marker, const std::string& signal,
                                const std::string& err_file) {
  return run(han_cmd(han_args) + " 2> " + err_file + " & pid=$!; for i in $(seq 1200); do grep -qF -- \"" + marker +
             "\" " + err_file + " && break; sleep 0.05; done; kill -" + signal + " $pid; wait $pid; rc=$?; cat " +
             err_file + " >&2; exit $rc");
}

// `times` copies of a bundled data file, written to `name` in `dir`; returns its path.
inline std::string repeated_data(const TempDir& dir, const std::string& bundled, int times, const std::string& name) {
  const std::string text = slurp(source_path(bundled));
  std::string out;
  out.reserve(text.size() * static_cast<std::size_t>(times));
  for (int i = 0; i < times; ++i) out += text;
  return dir.write(name, out);
}

// The first `n` lines of a bundled data file, written to `name` in `dir`; returns its path.
inline std::string head_of_data(const TempDir& dir, const std::string& bundled, std::size_t n,
                                const std::string& name) {
  const auto all = lines_of(slurp(source_path(bundled)));
  std::string out;
  for (std::size_t i = 0; i < n && i < all.size(); ++i) out += all[i] + "\n";
  return dir.write(name, out);
}

}  // namespace han::test
