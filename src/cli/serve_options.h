#pragma once
// han serve's options, as the command line gives them (cmd_serve.cpp) to the server
// (serve_run.cpp, in the han-serve executable; see serve_run.h).
#include <cstddef>
#include <string>

#include "logging.h"

namespace han::cli {

struct HttpOptions {
  std::string host = "127.0.0.1";
  int port = 8080;  // 0: a free one
  int threads = 64;
  int backlog = 1024;
  double timeout = 5;             // seconds
  int keep_alive_timeout = 5;     // seconds (httplib counts whole seconds)
  int keep_alive_max = 100;       // requests per connection
  std::size_t max_body = 1 << 20;  // bytes
};

struct ServeArgs {
  std::string model;
  HttpOptions http;
  int max_batch = 64;
  double max_wait_ms = 5;
  std::string max_body = "1MB";
  int max_texts = 256;
  bool allow_reload = false;
  LogOptions log;
};

}  // namespace han::cli
