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

std::FILE* open_for_reading(const std::string& path) {
  check_not_missing_or_folder(path);
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw Error(path + ": cannot read: " + std::strerror(errno));
  return f;
}

std::string read_file(const std::string& path, const ReadOptions& options) {
  std::FILE* f = open_for_reading(path);
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

namespace {

Error write_failure(const std::string& path, const std::string& reason) {
  return Error("cannot write " + path + ": " + reason, 1);
}

// The folder `path` will be written into; refuses a missing folder, a non-folder, or a
// path that is itself a directory.
fs::path checked_target_folder(const std::string& path) {
  if (path.empty()) throw write_failure(path, "empty path");
  fs::path folder = fs::path(path).parent_path();
  if (folder.empty()) folder = ".";
  std::error_code ec;
  const fs::file_status st = fs::status(folder, ec);
  if (st.type() == fs::file_type::not_found) throw write_failure(path, "folder " + folder.string() + " does not exist");
  if (!ec && st.type() != fs::file_type::directory) throw write_failure(path, folder.string() + " is not a folder");
  if (fs::is_directory(path, ec)) throw write_failure(path, "it is a directory");
  return folder;
}

// Creates `tmp` for writing. O_EXCL: never write through a pre-existing temp (or symlink)
// of the same name; a regular file of that name is a leftover of a killed process that
// had our pid, and is replaced.
std::FILE* create_temp_file(const std::string& path, const std::string& tmp) {
  std::error_code ec;
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  int open_err = errno;
  if (fd < 0 && open_err == EEXIST && fs::is_regular_file(fs::symlink_status(tmp, ec)) &&
      std::remove(tmp.c_str()) == 0) {
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    open_err = errno;
  }
  if (fd < 0) throw write_failure(path, "cannot create temporary file " + tmp + ": " + std::strerror(open_err));
  std::FILE* f = ::fdopen(fd, "wb");
  if (!f) {
    const int e = errno;
    ::close(fd);
    std::remove(tmp.c_str());
    throw write_failure(path, std::strerror(e));
  }
  return f;
}

// Writes, flushes, syncs and closes f; returns 0 or the errno of the first failure.
// f is closed in every case.
int write_and_close(std::FILE* f, const std::vector<std::string_view>& parts) {
  errno = 0;
  for (std::string_view bytes : parts)
    if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size()) {
      const int e = errno ? errno : EIO;
      std::fclose(f);
      return e;
    }
  if (std::fflush(f) != 0 || ::fsync(::fileno(f)) != 0) {
    const int e = errno ? errno : EIO;
    std::fclose(f);
    return e;
  }
  return std::fclose(f) != 0 ? (errno ? errno : EIO) : 0;
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& bytes) {
  write_file_atomically(path, std::vector<std::string_view>{bytes});
}

void write_file_atomically(const std::string& path, const std::vector<std::string_view>& parts) {
  const fs::path folder = checked_target_folder(path);
  const std::string tmp = path + ".tmp." + std::to_string(static_cast<long>(::getpid()));
  std::FILE* f = create_temp_file(path, tmp);
  int err = write_and_close(f, parts);
  if (err == 0 && std::rename(tmp.c_str(), path.c_str()) != 0) err = errno;
  if (err != 0) {
    std::remove(tmp.c_str());
    throw write_failure(path, std::strerror(err));
  }
  // Make the rename itself durable; a failure here does not undo the write.
  const int dfd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)::fsync(dfd);
    ::close(dfd);
  }
}

}  // namespace han
