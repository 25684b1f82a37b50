#pragma once
// Input bytes to UTF-8, before anything tokenizes them. Every reader of documents (data
// files, han predict's lines and files, han embed's text) passes each line, or each whole
// document, through a TextDecoder:
//  - auto (the default): a line that is valid UTF-8 is kept as it is; any other line is read
//    as Windows-1252, the encoding such files almost always have (Latin-1 text is
//    Windows-1252 text). The five bytes Windows-1252 leaves undefined (0x81, 0x8D, 0x8F,
//    0x90, 0x9D) become the C1 controls of the same number, as browsers do (WHATWG);
//  - utf-8: strict; each byte that does not start a valid sequence becomes U+FFFD;
//  - latin-1 (ISO-8859-1): every byte is the code point of its value;
//  - windows-1252: every line is read as Windows-1252.
// The decoder counts what it read: lines that were not UTF-8 (auto, utf-8), and lines with
// a NUL byte or many control bytes (binary input); warnings() says it in one line each.
#include <cstdint>
#include <string>
#include <vector>

#include "han/core/config_enums.h"

namespace han {

// The code point of byte b in Windows-1252.
char32_t windows_1252(unsigned char b);

class TextDecoder {
 public:
  explicit TextDecoder(TextEncoding encoding = TextEncoding::auto_) : encoding_(encoding) {}
  // Makes `text` (one line, or one whole document) valid UTF-8 in place, and counts it.
  void decode(std::string& text);

  TextEncoding encoding() const { return encoding_; }
  std::int64_t texts() const { return texts_; }        // decoded so far
  std::int64_t not_utf8() const { return not_utf8_; }  // of them, not valid UTF-8 as read (auto, utf-8)
  std::int64_t with_nul() const { return with_nul_; }  // of them, holding a NUL byte
  bool looks_binary() const;
  // One line each on what `name` held ("12 of 4000 lines are not UTF-8; read as
  // Windows-1252 (--encoding to choose)", "looks binary (NUL bytes); read as text anyway");
  // `unit` names what decode() was given ("line" or "file"); none when all was UTF-8 text.
  std::vector<std::string> warnings(const std::string& name, const std::string& unit = "line") const;

 private:
  TextEncoding encoding_;
  std::int64_t texts_ = 0, not_utf8_ = 0, with_nul_ = 0;
  std::uint64_t bytes_ = 0, control_bytes_ = 0;
  std::string scratch_;
};

}  // namespace han
