#include "serve_listener.h"

#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "han/core/error.h"

namespace han::cli {

HttpServer::HttpServer(const HttpOptions& o) : options_(o) {
  new_task_queue = [this] { return new ConnectionPool(static_cast<std::size_t>(options_.threads), connections_); };
  const auto timeout = std::chrono::microseconds(static_cast<std::int64_t>(o.timeout * 1e6));
  set_payload_max_length(o.max_body);
  set_read_timeout(timeout);   // a client that stops sending mid-request
  set_write_timeout(timeout);  // or stops reading its answer
  set_keep_alive_timeout(std::max(1, o.keep_alive_timeout));
  set_keep_alive_max_count(static_cast<std::size_t>(std::max(1, o.keep_alive_max)));
  set_tcp_nodelay(true);  // answers are small: send them at once
  // httplib's default also sets SO_REUSEPORT, which lets a second server share a port in
  // use without a word: only SO_REUSEADDR (a restart may bind while old connections linger).
  set_socket_options([](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  // A connection waits for a thread only while every thread holds one: ask the clients
  // served to reconnect, so that the waiting one gets a thread at the next close. A
  // stopping server (no listening socket) closes each connection after its answer.
  set_post_routing_handler([this](const httplib::Request&, httplib::Response& res) {
    if (connections_.waiting > 0 || svr_sock_ == INVALID_SOCKET) res.set_header("Connection", "close");
  });
}

int HttpServer::bind() {
  const std::string& host = options_.host;
  const int port = options_.port == 0 ? bind_to_any_port(host) : bind_to_port(host, options_.port) ? options_.port : -1;
  if (port <= 0)
    throw han::Error("cannot listen on " + host + ":" + std::to_string(options_.port) +
                         " (in use, or not an address of this machine)", 1);
  // Listening again on a listening socket sets its backlog (the kernel caps it at
  // net.core.somaxconn).
  if (::listen(svr_sock_, options_.backlog) != 0)
    throw han::Error("cannot listen on " + host + ":" + std::to_string(port) + " with a backlog of " +
                         std::to_string(options_.backlog), 1);
  return port;
}

}  // namespace han::cli
