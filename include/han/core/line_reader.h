#pragma once
// Reads lines from an InputStream (file, pipe, stdin, gzip) for streaming prediction and
// for data files.
// Besides next(), it tells whether more input is ready right now, so a caller can
// answer the lines it holds instead of waiting for a full batch (tail -f | han predict).
// Lines end at \n; a trailing \r is dropped. With cr_ends_line (data files), a lone \r
// also ends a line ("universal newlines": \n, \r\n and \r). Memory holds one read buffer
// and the current line, capped at max_line_bytes: the rest of an over-long line is
// skipped (the tokenizer's caps would drop it anyway) and truncated() says so.
#include <cstddef>
#include <string>

#include "han/core/input_stream.h"
#include "han/core/limits.h"

namespace han {

class LineReader {
 public:
  explicit LineReader(InputStream& in, std::size_t max_line_bytes = kMaxLineBytes,
                      bool cr_ends_line = false);
  // False at end of input. A final line without a line break is still returned.
  // Read errors throw han::Error with exit code 1.
  bool next(std::string& line);
  // True if a line can be returned without blocking (buffered, or the input is readable).
  bool ready();
  std::size_t line_number() const { return line_number_; }
  // Whether the line last returned by next() was cut at max_line_bytes.
  bool truncated() const { return truncated_; }
  // Lines read from now on are cut at `n` bytes.
  void set_max_line_bytes(std::size_t n) { max_line_bytes_ = n; }

 private:
  bool fill();  // one read(); false at EOF
  InputStream& in_;
  std::size_t max_line_bytes_;
  bool cr_ends_line_;
  std::string buffer_;
  std::size_t pos_ = 0;
  bool eof_ = false;
  bool truncated_ = false;
  std::size_t line_number_ = 0;
};

}  // namespace han
