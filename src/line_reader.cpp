#include "han/line_reader.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "han/error.h"

namespace han {

LineReader::LineReader(int fd, std::size_t max_line_bytes) : fd_(fd), max_line_bytes_(max_line_bytes) {}

bool LineReader::fill() {
  if (eof_) return false;
  if (pos_ > 0) {
    buffer_.erase(0, pos_);
    pos_ = 0;
  }
  char chunk[1 << 16];
  ssize_t n;
  do n = ::read(fd_, chunk, sizeof chunk);
  while (n < 0 && errno == EINTR);
  if (n < 0) throw Error(std::string("cannot read input: ") + std::strerror(errno), 1);
  if (n == 0) {
    eof_ = true;
    return false;
  }
  buffer_.append(chunk, static_cast<std::size_t>(n));
  return true;
}

bool LineReader::next(std::string& line) {
  line.clear();
  bool seen = false;  // any byte (or the newline) of this line
  for (;;) {
    const std::size_t nl = buffer_.find('\n', pos_);
    const std::size_t end = nl == std::string::npos ? buffer_.size() : nl;
    if (end > pos_) {
      seen = true;
      const std::size_t room = max_line_bytes_ - std::min(max_line_bytes_, line.size());
      line.append(buffer_, pos_, std::min(room, end - pos_));
    }
    if (nl != std::string::npos) {
      pos_ = nl + 1;
      seen = true;
      break;
    }
    pos_ = buffer_.size();
    if (!fill()) {
      if (!seen) return false;
      break;
    }
  }
  if (!line.empty() && line.back() == '\r') line.pop_back();
  ++line_number_;
  return true;
}

bool LineReader::ready() {
  if (buffer_.find('\n', pos_) != std::string::npos || eof_) return true;
  pollfd p{fd_, POLLIN, 0};
  return ::poll(&p, 1, 0) > 0;
}

}  // namespace han
