#include "han/core/io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "han/core/error.h"

namespace han {
namespace fs = std::filesystem;

namespace {

// Refuses missing paths and folders with a message naming `path`.
void check_not_missing_or_folder(const std::string& path) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (st.type() == fs::file_type::not_found) throw Error(path + ": no such file");
  if (ec) throw Error(path + ": cannot read: " + ec.message());
  if (st.type() == fs::file_type::directory) {
    throw Error(path + ": is a directory, expected a file");
  }
}

struct FileCloser {
  std::FILE* f;
  ~FileCloser() {
    if (f) std::fclose(f);
  }
};

}  // namespace

std::string read_file(const std::string& path) {
  ReadOptions options;
  options.max_bytes = static_cast<std::size_t>(-1);
  return read_file(path, options);
}

std::string read_file(const std::string& path, const ReadOptions& options) {
  check_not_missing_or_folder(path);
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw Error(path + ": cannot read: " + std::strerror(errno));
  FileCloser closer{f};
  struct stat st;
  const bool regular = ::fstat(::fileno(f), &st) == 0 && S_ISREG(st.st_mode);
  std::size_t limit = options.max_bytes;
  if (!regular) limit = std::min(limit, kMaxStreamBytes);
  const auto too_large = [&] {
    return Error(path + ": larger than " + std::to_string(limit) + " bytes, the most han reads");
  };
  if (options.truncated) *options.truncated = false;
  std::string out;
  if (regular && st.st_size > 0) {
    const auto size = static_cast<std::size_t>(st.st_size);
    if (size > limit && !options.truncate) throw too_large();
    out.reserve(std::min(size, limit));  // one allocation, no doubling copies
  }
  char buf[1 << 16];
  for (;;) {
    // One byte past the limit tells "exactly limit bytes" from "more".
    const std::size_t remaining = limit - std::min(limit, out.size());
    const std::size_t want = remaining >= sizeof buf ? sizeof buf : remaining + 1;
    const std::size_t n = std::fread(buf, 1, want, f);
    if (out.size() + n > limit) {
      if (!options.truncate) throw too_large();
      out.append(buf, limit - out.size());
      if (options.truncated) *options.truncated = true;
      break;
    }
    out.append(buf, n);
    if (!options.expected_prefix.empty() && out.size() >= 1) {
      const std::size_t k = std::min(out.size(), options.expected_prefix.size());
      if (out.compare(0, k, options.expected_prefix.substr(0, k)) != 0) break;
    }
    if (n < want) {
      if (std::ferror(f)) throw Error(path + ": cannot read: " + std::strerror(errno), 1);
      break;
    }
  }
  return out;
}

void require_regular_file(const std::string& path) {
  check_not_missing_or_folder(path);
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw Error(path + ": not a regular file");
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw Error(path + ": cannot read: " + std::strerror(errno));
  std::fclose(f);
}

void write_file_atomically(const std::string& path, const std::string& bytes) {
  const auto fail = [&](const std::string& reason) -> Error {
    return Error("cannot write " + path + ": " + reason, 1);
  };
  if (path.empty()) throw fail("empty path");

  fs::path folder = fs::path(path).parent_path();
  if (folder.empty()) folder = ".";
  std::error_code ec;
  const fs::file_status st = fs::status(folder, ec);
  if (st.type() == fs::file_type::not_found) {
    throw fail("folder " + folder.string() + " does not exist");
  }
  if (!ec && st.type() != fs::file_type::directory) {
    throw fail(folder.string() + " is not a folder");
  }
  if (fs::is_directory(path, ec)) throw fail("it is a directory");

  const std::string tmp = path + ".tmp." + std::to_string(static_cast<long>(::getpid()));
  // O_EXCL: never write through a pre-existing temp (or symlink) of the same name.
  // A regular file of that name is a leftover of a killed process that had our pid: replace it.
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  int open_err = errno;
  if (fd < 0 && open_err == EEXIST && fs::is_regular_file(fs::symlink_status(tmp, ec)) &&
      std::remove(tmp.c_str()) == 0) {
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    open_err = errno;
  }
  if (fd < 0) {
    throw fail("cannot create temporary file " + tmp + ": " + std::strerror(open_err));
  }
  std::FILE* f = ::fdopen(fd, "wb");
  if (!f) {
    const int e = errno;
    ::close(fd);
    std::remove(tmp.c_str());
    throw fail(std::strerror(e));
  }

  // From here on, any failure closes and removes the temp file.
  const auto abandon = [&](int err) -> Error {
    if (f) std::fclose(f);
    f = nullptr;
    std::remove(tmp.c_str());
    return fail(std::strerror(err));
  };
  errno = 0;
  if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size()) {
    throw abandon(errno ? errno : EIO);
  }
  if (std::fflush(f) != 0) throw abandon(errno ? errno : EIO);
  if (::fsync(::fileno(f)) != 0) throw abandon(errno);
  const int close_rc = std::fclose(f);
  f = nullptr;
  if (close_rc != 0) throw abandon(errno ? errno : EIO);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw abandon(errno);

  // Make the rename itself durable; a failure here does not undo the write.
  const int dfd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)::fsync(dfd);
    ::close(dfd);
  }
}

}  // namespace han
