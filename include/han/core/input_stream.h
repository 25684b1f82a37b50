#pragma once
// One input read once, front to back: a regular file, a pipe or device (/dev/stdin, the
// /dev/fd/N of a shell's <(...)), or standard input itself ("-"). gzip data is recognised
// by its first bytes, not its name, so `data.jsonl.gz` and `<(gzip -c data.jsonl)` both
// read as text; concatenated gzip members (`cat a.gz b.gz`) read as one stream, and a
// damaged or cut-short gzip stream is an error naming the input, never a silent end.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace han {

// True for the names that mean standard input: "-" (and nothing else; /dev/stdin is a path).
bool is_stdin_name(const std::string& path);
// How messages and output name an input: "<stdin>" for "-", else the path.
std::string input_name(const std::string& path);
// True for "-" and for paths to something read once: a pipe, a socket, a device
// (/dev/stdin, a shell's /dev/fd/N). Regular files and folders can be read again.
bool is_stream_path(const std::string& path);
// True if both name the same input ("-" standing for /dev/stdin).
bool same_input(const std::string& a, const std::string& b);

class InputStream {
 public:
  // Opens `path` ("-" = standard input). Missing, unreadable or a folder: han::Error
  // naming it (exit 2).
  explicit InputStream(const std::string& path);
  // Reads from an fd the caller owns and closes (tests, stdin); `name` is for messages.
  InputStream(int fd, std::string name);
  ~InputStream();
  InputStream(const InputStream&) = delete;
  InputStream& operator=(const InputStream&) = delete;

  // Up to `n` bytes into `out`; 0 only at the end of the input. Read failures: han::Error
  // with exit code 1; damaged gzip data: han::Error with exit code 2.
  std::size_t read(char* out, std::size_t n);
  // True if read() would return without waiting (data buffered, readable, or at the end).
  bool ready();
  // The size of a plain (not compressed) regular file, else 0: lets a reader size a long
  // line once instead of growing it by doubling.
  std::size_t plain_file_size() const;
  const std::string& name() const { return name_; }

 private:
  class Gzip;
  void sniff();  // looks at the first bytes once, before the first read
  std::size_t read_raw(char* out, std::size_t n);  // the sniffed bytes first, then the fd
  std::size_t read_fd(char* out, std::size_t n);

  std::string name_;
  int fd_ = -1;
  bool owns_fd_ = false;
  std::size_t file_size_ = 0;
  bool sniffed_ = false;
  std::vector<char> head_;  // bytes read while sniffing, not yet handed out
  std::size_t head_pos_ = 0;
  std::unique_ptr<Gzip> gzip_;
};

}  // namespace han
