#include "han/core/mapped_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "han/core/error.h"

namespace han {
namespace {

// Reading a mapped page past the end of a file cut short after it was mapped (rewritten
// in place, not replaced) raises SIGBUS: end with one line saying so, not a crash.
extern "C" void mapped_file_cut(int) {
  static const char line[] =
      "han: error: a file han had mapped was cut short while in use (a model or token cache rewritten in place? "
      "replace such files by moving a whole new file into place)\n";
  (void)!::write(2, line, sizeof line - 1);
  ::_exit(1);
}

void report_cut_files() {
  static const bool installed = [] {
    struct sigaction sa {};
    sa.sa_handler = mapped_file_cut;
    sigemptyset(&sa.sa_mask);
    return ::sigaction(SIGBUS, &sa, nullptr) == 0;
  }();
  (void)installed;
}

}  // namespace

std::shared_ptr<const MappedFile> MappedFile::open(const std::string& path) {
  report_cut_files();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(path + ": cannot read: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error(path + ": not a regular file");
  }
  const std::size_t size = static_cast<std::size_t>(st.st_size);
  void* data = nullptr;
  if (size > 0) {
    data = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (data == MAP_FAILED) {
      const int e = errno;
      ::close(fd);
      throw Error(path + ": cannot map: " + std::strerror(e));
    }
  }
  ::close(fd);  // the mapping stays valid without the descriptor
  return std::shared_ptr<const MappedFile>(new MappedFile(data, size));
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(data_, size_);
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
