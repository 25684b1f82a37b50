#pragma once
// han serve's HTTP threads: httplib serves a connection on one thread from its accept to
// its close, keep-alive requests included. This pool of --threads threads counts the
// connections accepted but waiting for a thread, so that while any wait, answers ask
// their clients to close (Connection: close) and free a thread for them.
#include <httplib.h>

#include <atomic>
#include <cstddef>
#include <functional>

namespace han::cli {

// Shared with the routes: read from any thread.
struct ConnectionCounts {
  std::atomic<std::size_t> waiting{0};  // accepted, no thread free yet
  std::atomic<std::size_t> served{0};   // holding a thread
};

class ConnectionPool : public httplib::ThreadPool {
 public:
  ConnectionPool(std::size_t threads, ConnectionCounts& counts) : httplib::ThreadPool(threads), counts_(counts) {}
  void enqueue(std::function<void()> connection) override;

 private:
  ConnectionCounts& counts_;
};

}  // namespace han::cli
