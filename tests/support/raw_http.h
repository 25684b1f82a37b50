#pragma once
// Raw TCP connections to a han serve on loopback, for the tests of clients that
// misbehave or that watch the connection itself (keep-alive, closes, timeouts). Every
// wait has a deadline.
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <string>

namespace han::test {

// A connected socket (blocking), closed at scope exit.
class RawConnection {
 public:
  explicit RawConnection(int port) : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    REQUIRE(fd_ >= 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  }
  ~RawConnection() { close(); }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  int fd() const { return fd_; }
  void send(const std::string& bytes) const {
    REQUIRE(::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size()));
  }
  // What the server sends next (waits up to `wait` for it); "" when it closed the connection.
  std::string read_reply(std::chrono::milliseconds wait = std::chrono::seconds(30)) const {
    pollfd p{fd_, POLLIN, 0};
    REQUIRE(::poll(&p, 1, static_cast<int>(wait.count())) == 1);
    char buf[65536];
    const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "";
  }
  // One whole response: its headers and Content-Length bytes of body (httplib sends them
  // apart); "" when the server closed the connection first.
  std::string read_response(std::chrono::milliseconds wait = std::chrono::seconds(30)) const {
    std::string out;
    const auto until = std::chrono::steady_clock::now() + wait;
    while (std::chrono::steady_clock::now() < until) {
      const std::size_t head_end = out.find("\r\n\r\n");
      if (head_end != std::string::npos && out.size() >= head_end + 4 + content_length(out)) return out;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 100) != 1) continue;
      char buf[65536];
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) return "";
      out.append(buf, static_cast<std::size_t>(n));
    }
    FAIL("no whole response within the deadline: " << out);
    return out;
  }
  // Everything the server sends until it closes the connection; "closed" says whether
  // it did within `wait`.
  std::string read_until_closed(bool& closed, std::chrono::milliseconds wait = std::chrono::seconds(30)) const {
    std::string out;
    closed = false;
    const auto until = std::chrono::steady_clock::now() + wait;
    while (!closed && std::chrono::steady_clock::now() < until) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 100) != 1) continue;
      char buf[65536];
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n > 0) out.append(buf, static_cast<std::size_t>(n));
      else closed = true;  // 0: closed; < 0: reset
    }
    return out;
  }
  std::string read_until_closed(std::chrono::milliseconds wait = std::chrono::seconds(30)) const {
    bool closed = false;
    return read_until_closed(closed, wait);
  }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  static std::size_t content_length(const std::string& head) {
    const std::string key = "Content-Length: ";
    const std::size_t at = head.find(key);
    return at == std::string::npos ? 0 : std::stoul(head.substr(at + key.size()));
  }
  int fd_;
};

// A GET request line and headers, keep-alive (HTTP/1.1's default).
inline std::string get_request(const std::string& path) { return "GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n"; }

// Seconds since `start`.
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace han::test
