#include "han/core/line_reader.h"

#include <algorithm>

#include "han/core/error.h"

namespace han {

namespace {
constexpr std::size_t kChunk = std::size_t{1} << 16;
}  // namespace

LineReader::LineReader(InputStream& in, std::size_t max_line_bytes, bool cr_ends_line)
    : in_(in), max_line_bytes_(max_line_bytes), cr_ends_line_(cr_ends_line) {}

bool LineReader::fill() {
  if (eof_) return false;
  if (pos_ > 0) {
    buffer_.erase(0, pos_);
    pos_ = 0;
  }
  char chunk[kChunk];
  const std::size_t n = in_.read(chunk, sizeof chunk);
  if (n == 0) {
    eof_ = true;
    return false;
  }
  buffer_.append(chunk, n);
  return true;
}

bool LineReader::next(std::string& line) {
  line.clear();
  truncated_ = false;
  bool seen = false;  // any byte (or the line break) of this line
  for (;;) {
    const std::size_t nl =
        cr_ends_line_ ? buffer_.find_first_of("\n\r", pos_) : buffer_.find('\n', pos_);
    const std::size_t end = nl == std::string::npos ? buffer_.size() : nl;
    if (end > pos_) {
      seen = true;
      const std::size_t room = max_line_bytes_ - std::min(max_line_bytes_, line.size());
      const std::size_t take = std::min(room, end - pos_);
      if (take < end - pos_) truncated_ = true;
      // A long line in a regular file: size it once instead of doubling (each doubling
      // briefly holds two copies). Reserved pages cost nothing until written.
      if (take > 0 && line.size() + take > line.capacity() && line.capacity() >= kChunk &&
          in_.plain_file_size() > 0) {
        line.reserve(std::min(max_line_bytes_, in_.plain_file_size()));
      }
      line.append(buffer_, pos_, take);
    }
    if (nl != std::string::npos) {
      seen = true;
      pos_ = nl + 1;
      if (buffer_[nl] == '\r' && cr_ends_line_) {
        // "\r\n" is one line break: look at the next byte, reading it if needed.
        if (pos_ == buffer_.size()) fill();
        if (pos_ < buffer_.size() && buffer_[pos_] == '\n') ++pos_;
      }
      break;
    }
    pos_ = buffer_.size();
    if (!fill()) {
      if (!seen) return false;
      break;
    }
  }
  if (!cr_ends_line_ && !line.empty() && line.back() == '\r') line.pop_back();
  ++line_number_;
  return true;
}

bool LineReader::ready() {
  if (eof_) return true;
  if (cr_ends_line_ ? buffer_.find_first_of("\n\r", pos_) != std::string::npos
                    : buffer_.find('\n', pos_) != std::string::npos) {
    return true;
  }
  return in_.ready();
}

}  // namespace han
