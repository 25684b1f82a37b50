#pragma once
// A han serve process as a user starts one: on a free loopback port (--port 0), its
// stderr read through a pipe until it says "han: listening on http://127.0.0.1:PORT",
// and a real HTTP client (cpp-httplib) to talk to it. Every wait has a deadline.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <httplib.h>
#include <memory>
#include <string>
#include <vector>

#include "support/paths.h"

namespace han::test {

class ServeProcess {
 public:
  // `args` after "han serve --port 0", e.g. {"-m", model}.
  explicit ServeProcess(const std::vector<std::string>& args) {
    int fds[2];
    REQUIRE(::pipe2(fds, O_CLOEXEC) == 0);
    std::vector<std::string> argv = {han_binary(), "serve", "--port", "0"};
    argv.insert(argv.end(), args.begin(), args.end());
    pid_ = ::fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      ::dup2(fds[1], STDERR_FILENO);
      std::vector<char*> c_args;
      for (std::string& a : argv) c_args.push_back(a.data());
      c_args.push_back(nullptr);
      ::execv(c_args[0], c_args.data());
      ::_exit(127);
    }
    ::close(fds[1]);
    err_fd_ = fds[0];
    const std::string mark = "han: listening on http://127.0.0.1:";
    while (err_.find(mark) == std::string::npos || err_.find('\n', err_.find(mark)) == std::string::npos) {
      INFO(err_);
      REQUIRE(read_some(std::chrono::seconds(60)));
    }
    port_ = std::stoi(err_.substr(err_.find(mark) + mark.size()));
  }
  ~ServeProcess() {
    if (pid_ > 0 && !ended_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    if (err_fd_ >= 0) ::close(err_fd_);
  }
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;

  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  std::unique_ptr<httplib::Client> client() const {
    auto c = std::make_unique<httplib::Client>("127.0.0.1", port_);
    c->set_read_timeout(std::chrono::seconds(60));
    c->set_connection_timeout(std::chrono::seconds(10));
    return c;
  }
  void signal(int sig) const { ::kill(pid_, sig); }
  // Waits for stderr to hold `text` (false after the deadline).
  bool wait_for_log(const std::string& text, std::chrono::seconds deadline = std::chrono::seconds(60)) {
    const auto until = std::chrono::steady_clock::now() + deadline;
    while (err_.find(text) == std::string::npos)
      if (std::chrono::steady_clock::now() > until || !read_some(std::chrono::seconds(1))) {
        if (std::chrono::steady_clock::now() > until) return false;
      }
    return true;
  }
  // Sends `sig` and waits for the process to end; its exit code (-1: killed by a signal).
  int stop(int sig = SIGTERM) {
    signal(sig);
    while (read_some(std::chrono::seconds(60))) {
    }
    int status = 0;
    ::waitpid(pid_, &status, 0);
    ended_ = true;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  const std::string& err() const { return err_; }

 private:
  // Reads what stderr has within `wait`; false at its end (or nothing in time).
  bool read_some(std::chrono::seconds wait) {
    pollfd p{err_fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(wait.count() * 1000)) <= 0) return false;
    char buf[4096];
    const ssize_t n = ::read(err_fd_, buf, sizeof buf);
    if (n <= 0) return false;
    err_.append(buf, static_cast<std::size_t>(n));
    return true;
  }

  pid_t pid_ = -1;
  int err_fd_ = -1;
  int port_ = 0;
  bool ended_ = false;
  std::string err_;
};

}  // namespace han::test
