#include "han/core/text_decoding.h"

#include <cstring>

#include "han/core/utf8.h"

namespace han {
namespace {

// Windows-1252's 0x80..0x9F; the five undefined bytes keep their C1 code points (WHATWG).
constexpr char16_t kHigh[32] = {0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
                                0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
                                0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
                                0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178};

constexpr char32_t kReplacement = 0xFFFD;

// A control byte that text does not hold: C0 but tab, line breaks, form feed and escape; DEL.
bool is_binary_control(unsigned char b) {
  return (b < 0x20 && b != '\t' && b != '\n' && b != '\r' && b != '\v' && b != '\f' && b != 0x1B) || b == 0x7F;
}

bool is_ascii(const std::string& s) {
  for (unsigned char b : s)
    if (b >= 0x80) return false;
  return true;
}

// Each byte of `in` as the code point `map` gives it.
template <class Map>
void decode_bytes(const std::string& in, std::string& out, Map map) {
  out.clear();
  out.reserve(in.size() + in.size() / 2);
  for (unsigned char b : in) {
    if (b < 0x80) out.push_back(static_cast<char>(b));
    else append_utf8(out, map(b));
  }
}

// Valid sequences kept, every other byte U+FFFD.
void replace_invalid(const std::string& in, std::string& out) {
  out.clear();
  out.reserve(in.size() + 8);
  const auto* p = reinterpret_cast<const unsigned char*>(in.data());
  for (std::size_t i = 0; i < in.size();) {
    char32_t cp = 0;
    const std::size_t len = decode_utf8(p + i, in.size() - i, cp);
    if (len == 0) {
      append_utf8(out, kReplacement);
      ++i;
    } else {
      out.append(in, i, len);
      i += len;
    }
  }
}

}  // namespace

char32_t windows_1252(unsigned char b) { return b >= 0x80 && b < 0xA0 ? kHigh[b - 0x80] : b; }

void TextDecoder::decode(std::string& text) {
  ++texts_;
  bytes_ += text.size();
  if (std::memchr(text.data(), 0, text.size())) ++with_nul_;
  for (unsigned char b : text) control_bytes_ += is_binary_control(b);
  if (is_ascii(text)) return;  // the same in every encoding han reads
  switch (encoding_) {
    case TextEncoding::auto_:
      if (is_valid_utf8(text)) return;
      ++not_utf8_;
      decode_bytes(text, scratch_, windows_1252);
      break;
    case TextEncoding::utf8:
      if (is_valid_utf8(text)) return;
      ++not_utf8_;
      replace_invalid(text, scratch_);
      break;
    case TextEncoding::latin1:
      decode_bytes(text, scratch_, [](unsigned char b) { return char32_t{b}; });
      break;
    case TextEncoding::windows1252:
      decode_bytes(text, scratch_, windows_1252);
      break;
  }
  text.swap(scratch_);
}

bool TextDecoder::looks_binary() const {
  // Text holds no NUL byte; random bytes are about 10 % control bytes, text far below 1 %.
  return with_nul_ > 0 || (control_bytes_ >= 8 && control_bytes_ * 20 > bytes_);
}

std::vector<std::string> TextDecoder::warnings(const std::string& name, const std::string& unit) const {
  std::vector<std::string> out;
  if (not_utf8_ > 0) {
    const std::string what = texts_ == 1 && unit == "file" ? "not UTF-8"
                             : std::to_string(not_utf8_) + " of " + std::to_string(texts_) + " " + unit + "s " +
                                   (not_utf8_ == 1 ? "is" : "are") + " not UTF-8";
    const std::string how = encoding_ == TextEncoding::utf8 ? "invalid bytes read as U+FFFD (--encoding utf-8)"
                                                            : "read as Windows-1252 (--encoding to choose)";
    out.push_back(name + ": " + what + "; " + how);
  }
  if (looks_binary()) {
    const std::string why = with_nul_ > 0 ? "NUL bytes" : "control bytes";
    out.push_back(name + ": looks binary (" + why + "); read as text anyway");
  }
  return out;
}

}  // namespace han
