#pragma once
// Interrupting han as a user does with Ctrl-C or kill: the command runs in the background
// until an event shows (a log line that says which phase it is in, a file it writes), then
// gets the signal. Inputs that keep a phase busy for seconds are the bundled data repeated.
#include <string>

#include "support/paths.h"
#include "support/run.h"

namespace han::test {

// Shell lines that run `command` in the background and send it `signal` (INT, TERM, KILL)
// once the shell test `event` holds, then wait for it; their exit code is the command's.
// The run is held stopped (SIGSTOP) except for 20 ms slices between two polls, so when the
// event is seen the run is paused right after it: the signal lands in the phase the event
// names however loaded the machine is (a run can do at most 20 ms of work past its event).
// The run may be stopped before it even opens its files: an event must not be true of what
// an earlier run left.
inline std::string signal_on_event(const std::string& command, const std::string& event, const std::string& signal) {
  return command + " & pid=$!; kill -STOP $pid; for i in $(seq 3000); do " + event +
         " && break; kill -CONT $pid; sleep 0.02; kill -STOP $pid; done; kill -" + signal +
         " $pid; kill -CONT $pid; wait $pid";
}

// Runs `han han_args` with stderr into `err_file`; once that file holds `marker` (a minute
// or so at most), sends `signal`, then waits for han to end. The result holds han's stdout,
// stderr and exit code.
inline RunResult run_and_signal(const std::string& han_args, const std::string& marker, const std::string& signal,
                                const std::string& err_file) {
  // Emptied first: the run is stopped before its shell opens the file, and an earlier run's
  // marker must not be taken for this one's.
  return run(": > " + err_file + "; " +
             signal_on_event(han_cmd(han_args) + " 2> " + err_file, "grep -qF -- \"" + marker + "\" " + err_file, signal) +
             "; rc=$?; cat " + err_file + " >&2; exit $rc");
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
