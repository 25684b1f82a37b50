#pragma once
// han serve's HTTP server: httplib's, with the limits a server facing many clients needs.
// A client that stalls mid-request or mid-answer is cut off after `timeout`; an idle
// keep-alive connection is closed after `keep_alive_timeout`, and any after
// `keep_alive_max` requests; while connections wait for one of the `threads` threads,
// answers carry "Connection: close"; the kernel queues up to `backlog` connections not
// yet accepted (httplib alone listens with a backlog of 5: a burst of clients would see
// their connections dropped and retried a second later).
#include <httplib.h>

#include <cstddef>
#include <string>

#include "serve_connections.h"
#include "serve_options.h"

namespace han::cli {

class HttpServer : public httplib::Server {
 public:
  explicit HttpServer(const HttpOptions& options);
  // Binds and listens (han::Error when it cannot); the port, picked when options.port is 0.
  int bind();
  const ConnectionCounts& connections() const { return connections_; }

 private:
  HttpOptions options_;
  ConnectionCounts connections_;
};

}  // namespace han::cli
