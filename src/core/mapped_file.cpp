#include "han/core/mapped_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <mutex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "han/core/error.h"

namespace han {
namespace {

// Reading a mapped page past the end of a file cut short after it was mapped (rewritten
// in place, not replaced) raises SIGBUS. The handler ends han with one line naming the
// file when the faulting address lies in one of its mappings; any other SIGBUS takes its
// default course. The table is written under a lock and read lock-free by the handler.
struct Mapping {
  std::atomic<std::uintptr_t> begin{0}, end{0};
  char path[240] = {};
};
constexpr int kMappings = 64;
Mapping g_mappings[kMappings];
std::mutex g_mappings_lock;
struct sigaction g_previous;  // the SIGBUS action before han's (a sanitizer's, or the default)

void write_all(const char* s) { (void)!::write(2, s, std::strlen(s)); }

extern "C" void mapped_file_cut(int sig, siginfo_t* info, void* context) {
  const auto at = reinterpret_cast<std::uintptr_t>(info->si_addr);
  for (const Mapping& m : g_mappings) {
    // si_code > 0: a fault (si_addr is where); a SIGBUS sent by kill has no address.
    if (info->si_code <= 0 || at < m.begin.load(std::memory_order_acquire) ||
        at >= m.end.load(std::memory_order_acquire))
      continue;
    write_all("han: error: ");
    write_all(m.path);
    write_all(": the file was cut short while han read it (rewritten in place? replace it by moving a whole new "
              "file into place)\n");
    ::_exit(1);
  }
  // Not ours: the action that was there before han's takes it.
  if (g_previous.sa_flags & SA_SIGINFO) {
    g_previous.sa_sigaction(sig, info, context);
  } else if (g_previous.sa_handler != SIG_IGN && g_previous.sa_handler != SIG_DFL) {
    g_previous.sa_handler(sig);
  } else {
    ::sigaction(sig, &g_previous, nullptr);
    ::raise(sig);  // (a fault re-raises itself on return; a sent one needs this)
  }
}

void watch(const void* data, std::size_t size, const std::string& path) {
  static const bool installed = [] {
    struct sigaction sa {};
    sa.sa_sigaction = mapped_file_cut;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    return ::sigaction(SIGBUS, &sa, &g_previous) == 0;
  }();
  (void)installed;
  const std::lock_guard<std::mutex> lock(g_mappings_lock);
  for (Mapping& m : g_mappings) {
    if (m.end.load() != 0) continue;
    std::snprintf(m.path, sizeof m.path, "%s", path.c_str());
    m.begin.store(reinterpret_cast<std::uintptr_t>(data), std::memory_order_release);
    m.end.store(reinterpret_cast<std::uintptr_t>(data) + size, std::memory_order_release);
    return;
  }  // (more than kMappings at once: the rest end as a plain SIGBUS would)
}

void unwatch(const void* data) {
  const std::lock_guard<std::mutex> lock(g_mappings_lock);
  for (Mapping& m : g_mappings)
    if (m.begin.load() == reinterpret_cast<std::uintptr_t>(data) && m.end.load() != 0) {
      m.end.store(0, std::memory_order_release);
      m.begin.store(0, std::memory_order_release);
    }
}

}  // namespace

std::shared_ptr<const MappedFile> MappedFile::open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(path + ": cannot read: " + std::strerror(errno));
  try {
    auto file = map(fd, path);
    ::close(fd);  // the mapping stays valid without the descriptor
    return file;
  } catch (...) {
    ::close(fd);
    throw;
  }
}

std::shared_ptr<const MappedFile> MappedFile::map(int fd, const std::string& path) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) throw Error(path + ": not a regular file");
  const std::size_t size = static_cast<std::size_t>(st.st_size);
  void* data = nullptr;
  if (size > 0) {
    data = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (data == MAP_FAILED) throw Error(path + ": cannot map: " + std::strerror(errno));
    watch(data, size, path);
  }
  return std::shared_ptr<const MappedFile>(new MappedFile(data, size));
}

MappedFile::~MappedFile() {
  if (!data_) return;
  unwatch(data_);
  ::munmap(data_, size_);
}

void MappedFile::release_pages() const {
  if (data_) ::madvise(data_, size_, MADV_DONTNEED);  // (read-only and private: nothing is lost)
}

std::size_t MappedFile::resident_bytes() const {
  if (!data_) return 0;
  std::ifstream smaps("/proc/self/smaps");
  const auto start = reinterpret_cast<std::uintptr_t>(data_);
  std::string line;
  bool ours = false;
  while (std::getline(smaps, line)) {
    unsigned long from = 0, to = 0;
    // A mapping's first line: "start-end perms ..."; its fields follow ("Rss:   12 kB").
    if (std::sscanf(line.c_str(), "%lx-%lx ", &from, &to) == 2) {
      ours = from == start;
      continue;
    }
    unsigned long kb = 0;
    if (ours && std::sscanf(line.c_str(), "Rss: %lu kB", &kb) == 1) return static_cast<std::size_t>(kb) * 1024;
  }
  return 0;
}

}  // namespace han
