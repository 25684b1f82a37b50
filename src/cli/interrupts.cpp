#include "interrupts.h"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstddef>

#include "han/train/run_lock.h"

namespace han::cli {
namespace {

std::atomic<int> g_signal{0};

// The line stop_at_once prints, in static storage a handler can read at any time. A new
// line goes to the next slot and is then published, so a handler never reads a line
// being written (commands switch phases a few times, not four times at once).
struct Line {
  char text[1024];
  std::size_t size;
};
Line g_lines[4];
std::atomic<int> g_line{-1};

extern "C" void note_signal(int sig) { g_signal.store(sig); }

// Only async-signal-safe calls: write, unlink, rmdir and _exit.
extern "C" void exit_at_once(int sig) {
  remove_run_lock_at_exit();  // the run's folder as it was before it
  const int line = g_line.load();
  if (line >= 0) {
    const ssize_t written = ::write(STDERR_FILENO, g_lines[line].text, g_lines[line].size);
    (void)written;  // nothing more to do if stderr is gone
  }
  ::_exit(128 + sig);
}

void install(void (*handler)(int), int flags) {
  struct sigaction sa {};
  sa.sa_handler = handler;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = flags;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

}  // namespace

void stop_at_once(const std::string& message) {
  const int next = (g_line.load() + 1) % 4;
  const std::string text = ("han: " + message).substr(0, sizeof g_lines[next].text - 1) + "\n";
  text.copy(g_lines[next].text, text.size());
  g_lines[next].size = text.size();
  g_line.store(next);
  install(exit_at_once, 0);
  if (const int sig = g_signal.load()) exit_at_once(sig);
}

void stop_gracefully() { install(note_signal, SA_RESETHAND); }

bool stop_requested() { return g_signal.load() != 0; }

int stop_exit_code() { return 128 + g_signal.load(); }

}  // namespace han::cli
