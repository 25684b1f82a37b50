#include "han/train/run_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

#include "han/core/error.h"

namespace han {
namespace {

// The RunLock alive, in static storage a signal handler can read (remove_run_lock_at_exit).
// A process holds one at a time (han train's run folder).
struct HeldPaths {
  char lock[4096];
  char folder[4096];
  bool made_folder;
};
HeldPaths g_held;
std::atomic<bool> g_holding{false};

void publish(const std::string& lock, const std::string& folder, bool made_folder) {
  if (lock.size() >= sizeof g_held.lock || folder.size() >= sizeof g_held.folder) return;  // left to the kernel
  lock.copy(g_held.lock, lock.size());
  g_held.lock[lock.size()] = '\0';
  folder.copy(g_held.folder, folder.size());
  g_held.folder[folder.size()] = '\0';
  g_held.made_folder = made_folder;
  g_holding.store(true);
}

// What the lock file says of its holder ("han train (pid 123)"), or "another run".
std::string holder_of(int fd) {
  char text[256] = {};
  const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
  std::string holder = n > 0 ? std::string(text, static_cast<std::size_t>(n)) : "";
  while (!holder.empty() && (holder.back() == '\n' || holder.back() == '\r')) holder.pop_back();
  return holder.empty() ? "another run" : holder;
}

// Whether `fd` is still the file at `path`: a holder that ended removed it, and a new one
// may stand there, which is the one to lock.
bool still_at(int fd, const std::string& path) {
  struct stat held {}, named {};
  return ::fstat(fd, &held) == 0 && ::stat(path.c_str(), &named) == 0 && held.st_ino == named.st_ino &&
         held.st_dev == named.st_dev;
}

}  // namespace

RunLock::RunLock(const std::string& folder, const std::string& holder, bool made_folder)
    : folder_(folder), path_(folder + "/" + kFileName), made_folder_(made_folder) {
  // This process holds it already (a run reopened while planned): the outer lock stands.
  if (g_holding.load() && path_ == g_held.lock) return;
  for (;;) {
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw Error("cannot lock " + folder + ": cannot open " + path_ + ": " + std::strerror(errno), 1);
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      const std::string other = holder_of(fd_);
      ::close(fd_);
      fd_ = -1;
      if (err == EWOULDBLOCK)
        throw Error(folder + " is in use by " + other + ": one run writes a folder at a time; wait for it to end, or "
                    "choose another folder");
      throw Error("cannot lock " + folder + ": " + std::strerror(err), 1);
    }
    if (still_at(fd_, path_)) break;
    ::close(fd_);  // locked a file its holder had removed: lock the one at the path now
  }
  const std::string text = holder + " (pid " + std::to_string(::getpid()) + ")\n";
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size())) {
    const int err = errno;
    ::unlink(path_.c_str());
    ::close(fd_);
    throw Error("cannot lock " + folder + ": cannot write " + path_ + ": " + std::strerror(err), 1);
  }
  publish(path_, folder_, made_folder_);
}

RunLock::~RunLock() {
  if (fd_ < 0) return;
  g_holding.store(false);
  ::unlink(path_.c_str());  // while locked: a waiting run then locks a new file (still_at)
  if (made_folder_) ::rmdir(folder_.c_str());  // fails, as it should, once the run wrote anything
  ::close(fd_);
}

void remove_run_lock_at_exit() noexcept {
  if (!g_holding.exchange(false)) return;
  ::unlink(g_held.lock);
  if (g_held.made_folder) ::rmdir(g_held.folder);
}

}  // namespace han
