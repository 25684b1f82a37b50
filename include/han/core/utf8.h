#pragma once
// UTF-8 decoding and validation, one set of rules for every part that checks text:
// no stray continuation bytes, no truncated sequences, no overlong forms, no surrogates,
// nothing above U+10FFFF.
#include <cstddef>
#include <string_view>

namespace han {

// Decodes the sequence starting at p (n >= 1 bytes available). Returns its length and
// sets cp, or returns 0 when p[0] does not start a valid sequence. Never reads past
// p[n-1]. Inline: the tokenizer calls it per character.
inline std::size_t decode_utf8(const unsigned char* p, std::size_t n, char32_t& cp) {
  const unsigned char b0 = p[0];
  if (b0 < 0x80) {
    cp = b0;
    return 1;
  }
  if (b0 < 0xC2) return 0;  // continuation byte, or overlong 2-byte lead (C0, C1)
  if (b0 < 0xE0) {
    if (n < 2 || (p[1] & 0xC0) != 0x80) return 0;
    cp = (char32_t(b0 & 0x1F) << 6) | char32_t(p[1] & 0x3F);
    return 2;
  }
  if (b0 < 0xF0) {
    if (n < 3 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80) return 0;
    const char32_t c = (char32_t(b0 & 0x0F) << 12) | (char32_t(p[1] & 0x3F) << 6) | char32_t(p[2] & 0x3F);
    if (c < 0x800 || (c >= 0xD800 && c <= 0xDFFF)) return 0;  // overlong or surrogate
    cp = c;
    return 3;
  }
  if (b0 < 0xF5) {
    if (n < 4 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 || (p[3] & 0xC0) != 0x80) return 0;
    const char32_t c = (char32_t(b0 & 0x07) << 18) | (char32_t(p[1] & 0x3F) << 12) |
                       (char32_t(p[2] & 0x3F) << 6) | char32_t(p[3] & 0x3F);
    if (c < 0x10000 || c > 0x10FFFF) return 0;  // overlong or out of range
    cp = c;
    return 4;
  }
  return 0;  // F5..FF never appear in UTF-8
}

// Offset of the first byte that does not start a valid sequence, or s.size() if none.
std::size_t first_invalid_utf8(std::string_view s);

// Appends the UTF-8 form of code point c (< 0x110000) to out.
void append_utf8(std::string& out, char32_t c);

inline bool is_valid_utf8(std::string_view s) { return first_invalid_utf8(s) == s.size(); }

// The longest prefix of s of at most max_bytes that does not cut a valid sequence in two
// (for excerpts of input in messages).
std::string_view utf8_prefix(std::string_view s, std::size_t max_bytes);

}  // namespace han
