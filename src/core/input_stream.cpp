#include "han/core/input_stream.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "han/core/error.h"

namespace han {

namespace {
constexpr std::size_t kRawChunk = std::size_t{1} << 16;
constexpr unsigned char kGzipMagic[2] = {0x1f, 0x8b};
}  // namespace

bool is_stdin_name(const std::string& path) { return path == "-"; }

std::string input_name(const std::string& path) { return is_stdin_name(path) ? "<stdin>" : path; }

namespace {
std::string device_path(const std::string& path) { return is_stdin_name(path) ? "/dev/stdin" : path; }
}  // namespace

bool is_stream_path(const std::string& path) {
  if (is_stdin_name(path)) return true;
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

bool same_input(const std::string& a, const std::string& b) {
  if (a == b) return true;
  struct stat sa, sb;
  return ::stat(device_path(a).c_str(), &sa) == 0 && ::stat(device_path(b).c_str(), &sb) == 0 &&
         sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

// zlib's inflate over the raw bytes; one gzip member after another until the input ends.
class InputStream::Gzip {
 public:
  explicit Gzip(const std::string& name) : name_(name), raw_(kRawChunk) {
    // 16 + MAX_WBITS: gzip wrapping only (a zlib or raw deflate stream is not a .gz file).
    if (inflateInit2(&z_, 16 + MAX_WBITS) != Z_OK) throw Error(name_ + ": cannot start gzip decompression", 1);
  }
  ~Gzip() { inflateEnd(&z_); }

  bool has_input() const { return z_.avail_in > 0; }

  // Decompressed bytes into out; 0 at the end. `read_raw` refills the compressed input.
  template <class ReadRaw>
  std::size_t read(char* out, std::size_t n, ReadRaw&& read_raw) {
    for (;;) {
      if (z_.avail_in == 0 && !raw_ended_) {
        const std::size_t got = read_raw(raw_.data(), raw_.size());
        raw_ended_ = got == 0;
        z_.next_in = reinterpret_cast<Bytef*>(raw_.data());
        z_.avail_in = static_cast<uInt>(got);
      }
      if (z_.avail_in == 0 && raw_ended_) {
        if (in_member_) throw Error(name_ + ": the gzip data ends early (is the file cut short?)");
        return 0;
      }
      if (!in_member_) {  // another member follows (`cat a.gz b.gz`)
        inflateReset(&z_);
        in_member_ = true;
      }
      z_.next_out = reinterpret_cast<Bytef*>(out);
      z_.avail_out = static_cast<uInt>(std::min<std::size_t>(n, 1u << 30));
      const uInt before = z_.avail_out;
      const int rc = inflate(&z_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        in_member_ = false;
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        throw Error(name_ + ": not valid gzip data (" + std::string(z_.msg ? z_.msg : "inflate failed") + ")");
      }
      const std::size_t produced = before - z_.avail_out;
      if (produced > 0) return produced;
    }
  }

 private:
  const std::string& name_;
  z_stream z_{};
  std::vector<char> raw_;
  bool raw_ended_ = false;
  bool in_member_ = true;
};

InputStream::InputStream(const std::string& path) : name_(input_name(path)) {
  if (is_stdin_name(path)) {
    fd_ = STDIN_FILENO;
  } else {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) {
      if (errno == ENOENT) throw Error(path + ": no such file");
      throw Error(path + ": cannot read: " + std::strerror(errno));
    }
    owns_fd_ = true;
  }
  struct stat st;
  if (::fstat(fd_, &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      if (owns_fd_) ::close(fd_);
      throw Error(name_ + ": is a directory, expected a file");
    }
    if (S_ISREG(st.st_mode) && st.st_size > 0) file_size_ = static_cast<std::size_t>(st.st_size);
  }
}

InputStream::InputStream(int fd, std::string name) : name_(std::move(name)), fd_(fd) {
  struct stat st;
  if (::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    file_size_ = static_cast<std::size_t>(st.st_size);
  }
}

InputStream::~InputStream() {
  gzip_.reset();
  if (owns_fd_) ::close(fd_);
}

std::size_t InputStream::read_raw(char* out, std::size_t n) {
  if (head_pos_ < head_.size()) {
    const std::size_t k = std::min(n, head_.size() - head_pos_);
    std::memcpy(out, head_.data() + head_pos_, k);
    head_pos_ += k;
    return k;
  }
  return read_fd(out, n);
}

std::size_t InputStream::read_fd(char* out, std::size_t n) {
  ssize_t got;
  do got = ::read(fd_, out, n);
  while (got < 0 && errno == EINTR);
  if (got < 0) throw Error(name_ + ": cannot read input: " + std::strerror(errno), 1);
  return static_cast<std::size_t>(got);
}

void InputStream::sniff() {
  sniffed_ = true;
  // Only a first byte of 0x1f waits for a second one: a terminal or `tail -f` feeding
  // plain text is never held back.
  head_.resize(kRawChunk);
  std::size_t have = read_fd(head_.data(), head_.size());
  while (have == 1 && static_cast<unsigned char>(head_[0]) == kGzipMagic[0]) {
    const std::size_t more = read_fd(head_.data() + have, head_.size() - have);
    if (more == 0) break;
    have += more;
  }
  head_.resize(have);
  if (have >= 2 && static_cast<unsigned char>(head_[0]) == kGzipMagic[0] &&
      static_cast<unsigned char>(head_[1]) == kGzipMagic[1]) {
    gzip_ = std::make_unique<Gzip>(name_);
  }
}

std::size_t InputStream::read(char* out, std::size_t n) {
  if (n == 0) return 0;
  if (!sniffed_) sniff();
  if (!gzip_) return read_raw(out, n);
  return gzip_->read(out, n, [this](char* buf, std::size_t k) { return read_raw(buf, k); });
}

bool InputStream::ready() {
  if (head_pos_ < head_.size() || (gzip_ && gzip_->has_input())) return true;
  pollfd p{fd_, POLLIN, 0};
  return ::poll(&p, 1, 0) > 0;
}

std::size_t InputStream::plain_file_size() const { return gzip_ ? 0 : file_size_; }

}  // namespace han
