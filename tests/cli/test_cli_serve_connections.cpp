// han serve's connections, through real HTTP on raw sockets: keep-alive connections are
// closed when idle or after --keep-alive-max requests, and asked to close while others
// wait for a thread; a burst of connections is queued by the kernel, not dropped; a
// client that stalls mid-request is cut off while the others are answered.
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "support/cli_fixture.h"
#include "support/raw_http.h"
#include "support/serve.h"

using namespace han::test;

namespace {

bool says_close(const std::string& reply) { return reply.find("Connection: close") != std::string::npos; }

// Starts a non-blocking connect to the port (the handshake goes on in the kernel).
int start_connect(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  REQUIRE(fd >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const int r = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  REQUIRE((r == 0 || errno == EINPROGRESS));
  return fd;
}

// How many of the connects have completed (their sockets writable) within `wait`.
std::size_t connected_within(const std::vector<int>& fds, std::chrono::milliseconds wait) {
  const auto until = std::chrono::steady_clock::now() + wait;
  std::vector<pollfd> pending;
  for (int fd : fds) pending.push_back({fd, POLLOUT, 0});
  std::size_t connected = 0;
  while (!pending.empty() && std::chrono::steady_clock::now() < until) {
    if (::poll(pending.data(), pending.size(), 10) <= 0) continue;
    std::vector<pollfd> still;
    for (const pollfd& p : pending) {
      if (p.revents == 0) still.push_back({p.fd, POLLOUT, 0});
      else if (p.revents & POLLOUT) ++connected;
    }
    pending = still;
  }
  return connected;
}

}  // namespace

TEST_CASE("serve closes a connection idle for --keep-alive-timeout, and any after --keep-alive-max requests",
          "[cli][serve]") {
  const CliFixture& f = cli_fixture();
  ServeProcess server({"-m", f.model, "--keep-alive-timeout", "1", "--keep-alive-max", "3"});
  {
    RawConnection raw(server.port());
    for (int i = 1; i <= 3; ++i) {
      raw.send(get_request("/healthz"));
      const std::string reply = raw.read_response();
      INFO("request " << i << ": " << reply);
      CHECK(reply.find("HTTP/1.1 200") == 0);
      CHECK(says_close(reply) == (i == 3));  // the third is the last
    }
    bool closed = false;
    raw.read_until_closed(closed, std::chrono::seconds(2));
    CHECK(closed);  // at once: not after the idle timeout
  }
  RawConnection idle(server.port());
  idle.send(get_request("/healthz"));
  CHECK(idle.read_response().find("HTTP/1.1 200") == 0);
  const auto start = std::chrono::steady_clock::now();
  bool closed = false;
  idle.read_until_closed(closed, std::chrono::seconds(30));
  CHECK(closed);
  CHECK(seconds_since(start) >= 0.9);
  CHECK(seconds_since(start) < 10);
  CHECK(server.stop() == 0);
}

TEST_CASE("serve asks its clients to close while connections wait for a thread", "[cli][serve]") {
  const CliFixture& f = cli_fixture();
  // One HTTP thread, and idle connections kept long: only a close frees the thread.
  ServeProcess server({"-m", f.model, "--threads", "1", "--keep-alive-timeout", "60"});
  RawConnection first(server.port());
  first.send(get_request("/healthz"));
  CHECK_FALSE(says_close(first.read_response()));  // nobody waits: keep-alive
  RawConnection second(server.port());
  second.send(get_request("/healthz"));  // accepted, but the thread holds the first connection
  bool asked = false;
  for (int i = 0; i < 200 && !asked; ++i) {  // until the server has accepted the second
    first.send(get_request("/healthz"));
    const std::string reply = first.read_response();
    REQUIRE(reply.find("HTTP/1.1 200") == 0);
    asked = says_close(reply);
    if (!asked) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  CHECK(asked);
  first.close();  // as a client told to close does: the second gets the thread
  const auto start = std::chrono::steady_clock::now();
  CHECK(second.read_response(std::chrono::seconds(30)).find("HTTP/1.1 200") == 0);
  CHECK(seconds_since(start) < 10);  // not the 60 s idle timeout
  second.close();  // a stop waits for idle connections to time out
  CHECK(server.stop() == 0);
}

TEST_CASE("serve queues a burst of connections in its listen backlog instead of dropping them", "[cli][serve]") {
  const CliFixture& f = cli_fixture();
  ServeProcess server({"-m", f.model, "--threads", "4", "--keep-alive-timeout", "1"});
  // A dropped connect is retried by the client's kernel after a second: each of the burst
  // connects at once (the handshake needs no thread of the server) or was dropped.
  std::vector<int> burst;
  for (int i = 0; i < 300; ++i) burst.push_back(start_connect(server.port()));
  CHECK(connected_within(burst, std::chrono::milliseconds(800)) == burst.size());
  for (int fd : burst) ::close(fd);
  auto c = server.client();
  const auto res = c->Get("/healthz");  // the closed ones are passed over
  REQUIRE(res);
  CHECK(res->status == 200);
  CHECK(server.stop() == 0);
}

TEST_CASE("serve cuts off a client that stalls mid-request for --timeout and answers the others meanwhile",
          "[cli][serve]") {
  const CliFixture& f = cli_fixture();
  ServeProcess server({"-m", f.model, "--timeout", "1", "--keep-alive-timeout", "1", "--threads", "4"});
  RawConnection slow(server.port());
  slow.send("POST /v1/predict HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"text\":");
  auto c = server.client();
  for (int i = 0; i < 5; ++i) {  // a byte now and then, each within the timeout
    slow.send(" ");
    const auto res = c->Post("/v1/predict", "{\"text\": \"A fine film.\"}", "application/json");
    REQUIRE(res);
    CHECK(res->status == 200);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  const auto start = std::chrono::steady_clock::now();  // then nothing
  bool closed = false;
  const std::string reply = slow.read_until_closed(closed, std::chrono::seconds(30));
  INFO(reply);
  CHECK(reply.find("HTTP/1.1 408") == 0);
  CHECK(reply.find("--timeout") != std::string::npos);
  CHECK(closed);
  CHECK(seconds_since(start) < 15);
  CHECK(c->Get("/healthz")->status == 200);
  {  // a flood of connections that never send: each is closed after --keep-alive-timeout
    std::vector<std::unique_ptr<RawConnection>> flood;
    for (int i = 0; i < 12; ++i) flood.push_back(std::make_unique<RawConnection>(server.port()));
    const auto res = c->Get("/healthz");  // the 4 threads free up as the silent ones are closed
    REQUIRE(res);
    CHECK(res->status == 200);
  }
  CHECK(server.stop() == 0);
}
