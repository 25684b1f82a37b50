#include "han/core/utf8.h"

namespace han {

std::size_t first_invalid_utf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  std::size_t i = 0;
  char32_t cp;
  while (i < s.size()) {
    const std::size_t len = decode_utf8(p + i, s.size() - i, cp);
    if (len == 0) return i;
    i += len;
  }
  return i;
}

std::string_view utf8_prefix(std::string_view s, std::size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  std::size_t end = 0;
  char32_t cp;
  while (end < max_bytes) {
    // An invalid byte counts as one character: it is cut like any other.
    const std::size_t len = decode_utf8(p + end, s.size() - end, cp);
    const std::size_t step = len == 0 ? 1 : len;
    if (end + step > max_bytes) break;
    end += step;
  }
  return s.substr(0, end);
}

void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (c >> 6)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (c >> 12)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (c >> 18)));
    out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

}  // namespace han
