#pragma once
// han::Error is for the user: bad usage, config or input. Its message names the
// file, line or key, and the CLI prints it as one line and exits with exit_code().
// HAN_ASSERT is for bugs: a broken internal invariant, never the user's fault.
#include <stdexcept>
#include <string>

namespace han {

class Error : public std::runtime_error {
 public:
  // 2: bad usage, config or input; 1: any other failure (I/O faults, numerical blow-ups).
  explicit Error(const std::string& message, int exit_code = 2)
      : std::runtime_error(message), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

[[noreturn]] void assertion_failed(const char* expr, const char* file, int line);

}  // namespace han

#define HAN_ASSERT(cond) \
  ((cond) ? static_cast<void>(0) : ::han::assertion_failed(#cond, __FILE__, __LINE__))
