#pragma once
// Reads lines from a file descriptor for streaming prediction. Besides next(),
// it tells whether more input is ready right now, so a caller can answer the lines
// it holds instead of waiting for a full batch (tail -f | han predict).
// Lines end at \n; a trailing \r is dropped. Memory holds one read buffer and the
// current line, capped at max_line_bytes (the rest of an over-long line is skipped,
// since the tokenizer's caps would drop it anyway).
#include <cstddef>
#include <string>

namespace han {

class LineReader {
 public:
  explicit LineReader(int fd, std::size_t max_line_bytes = 16u << 20);
  // False at end of input. A final line without \n is still returned.
  bool next(std::string& line);
  // True if a line can be returned without blocking (buffered, or the fd is readable).
  bool ready();
  std::size_t line_number() const { return line_number_; }

 private:
  bool fill();  // one read(); false at EOF
  int fd_;
  std::size_t max_line_bytes_;
  std::string buffer_;
  std::size_t pos_ = 0;
  bool eof_ = false;
  std::size_t line_number_ = 0;
};

}  // namespace han
