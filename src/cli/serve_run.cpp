// han serve, run (the han-serve executable; serve_run.h): a model behind HTTP
// (serve_routes.h). Signals are taken by one thread (sigwait), not by handlers: SIGHUP
// reloads the model file, SIGINT and SIGTERM stop accepting, let the requests in flight
// finish, and end with exit status 0.
#include <pthread.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <cctype>
#include <csignal>
#include <cstdint>
#include <memory>
#include <thread>

#include "han/core/error.h"
#include "han/core/types.h"  // Eigen before cpp-httplib, whose <resolv.h> defines a `_res` macro that breaks it
#include "serve_listener.h"
#include "serve_routes.h"
#include "serve_run.h"
#include "serve_state.h"

namespace han::cli {
namespace {

// "1MB", "512KB", "4096" (bytes): powers of 1024.
std::size_t byte_size(const std::string& text) {
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  const std::string unit = text.substr(digits);
  const int shift = unit.empty() || unit == "B" ? 0 : unit == "KB" ? 10 : unit == "MB" ? 20 : unit == "GB" ? 30 : -1;
  if (digits == 0 || digits > 9 || shift < 0)
    throw han::Error("--max-body: expected a size such as 1MB, 512KB or 4096 (bytes), got \"" + text + "\"");
  const std::size_t n = std::stoul(text.substr(0, digits)) << shift;
  if (n == 0) throw han::Error("--max-body: must be more than 0 bytes");
  return n;
}

sigset_t serve_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (const int sig : {SIGHUP, SIGINT, SIGTERM}) sigaddset(&set, sig);
  return set;
}

// Waits for signals: SIGHUP reloads; SIGINT or SIGTERM stops the server and returns.
void take_signals(HttpServer& server, ServeState& state) {
  const sigset_t set = serve_signals();
  while (true) {
    int sig = 0;
    if (sigwait(&set, &sig) != 0) continue;
    if (sig == SIGHUP) {
      state.reload();
      continue;
    }
    if (!state.stopping.exchange(true))
      spdlog::info("{}: no more connections; finishing the requests in flight", sig == SIGINT ? "SIGINT" : "SIGTERM");
    server.stop();
    return;
  }
}

}  // namespace

void serve(const ServeArgs& a) {
  setup_logging(a.log);
  // Blocked before any thread starts, so every thread inherits the mask and only the
  // signal thread's sigwait takes them.
  const sigset_t signals = serve_signals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::shared_ptr<const serve::ServedModel> model = load_served_model(a.model);
  spdlog::info("loaded {} in {:.3f} s", model->path, model->load_seconds);
  serve::BatcherOptions batching;
  batching.max_batch = static_cast<std::size_t>(a.max_batch);
  batching.max_wait = std::chrono::microseconds(static_cast<std::int64_t>(a.max_wait_ms * 1000));
  ServeState state(a.model, model, batching, {static_cast<std::size_t>(a.max_texts), a.allow_reload});
  model.reset();
  HttpOptions http = a.http;
  http.max_body = byte_size(a.max_body);
  HttpServer server(http);
  add_routes(server, state);
  const int port = server.bind();
  // The listener runs on a thread of its own; this one waits until it accepts (a stop
  // asked before that would be lost), then takes the signals.
  std::atomic<bool> listening_ended{false};
  bool listened = false;
  const pthread_t signal_taker = pthread_self();
  std::thread listener([&] {
    listened = server.listen_after_bind();
    listening_ended = true;
    if (!state.stopping) pthread_kill(signal_taker, SIGTERM);  // it failed: wake the signal taker
  });
  while (!server.is_running() && !listening_ended) std::this_thread::yield();
  const std::string& host = a.http.host;
  spdlog::info("listening on http://{}:{}", host.find(':') == std::string::npos ? host : "[" + host + "]", port);
  take_signals(server, state);
  listener.join();
  state.batcher.stop();
  if (!listened) throw han::Error("the server stopped: cannot accept connections", 1);
  spdlog::info("stopped");
}


}  // namespace han::cli
