#pragma once
// Ctrl-C (SIGINT) and SIGTERM in the commands that run long (train, ablate, embed). Each phase
// says how a signal is answered:
// - stop_at_once(message): a phase with nothing to save (reading the data; scoring a
//   model that is already complete): the signal prints "han: <message>" and ends the
//   process with 128 + signal at once.
// - stop_gracefully(): the signal is only noted (stop_requested()); the command saves its
//   work at its next safe point and ends with stop_exit_code(). SA_RESETHAND: a second
//   signal ends the process at once.
#include <string>

namespace han::cli {

// Also answers, at once, a signal noted before (by stop_gracefully).
void stop_at_once(const std::string& message);
void stop_gracefully();
bool stop_requested();
int stop_exit_code();  // 128 + the signal that asked to stop

}  // namespace han::cli
