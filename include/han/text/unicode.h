#pragma once
// The Unicode machinery under the tokenizer (utf8proc, Unicode 15): UTF-8 decoding,
// normalisation and grapheme-cluster breaks. Only src/text/ links utf8proc.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace han::unicode {

using CodePoints = std::vector<std::int32_t>;

// Decodes the UTF-8 sequence starting at p (n >= 1 bytes available). Returns its length,
// or 0 when p[0] does not start a valid sequence (stray continuation byte, truncated
// sequence, overlong form, surrogate, value above U+10FFFF). Never reads past p[n-1].
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
    const char32_t c =
        (char32_t(b0 & 0x0F) << 12) | (char32_t(p[1] & 0x3F) << 6) | char32_t(p[2] & 0x3F);
    if (c < 0x800 || (c >= 0xD800 && c <= 0xDFFF)) return 0;  // overlong or surrogate
    cp = c;
    return 3;
  }
  if (b0 < 0xF5) {
    if (n < 4 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 || (p[3] & 0xC0) != 0x80) {
      return 0;
    }
    const char32_t c = (char32_t(b0 & 0x07) << 18) | (char32_t(p[1] & 0x3F) << 12) |
                       (char32_t(p[2] & 0x3F) << 6) | char32_t(p[3] & 0x3F);
    if (c < 0x10000 || c > 0x10FFFF) return 0;  // overlong or out of range
    cp = c;
    return 4;
  }
  return 0;  // F5..FF never appear in UTF-8
}

void append_utf8(std::string& out, char32_t c);

// Normalisation is NFKC (compatibility forms folded: "ｅ" -> "e", "ﬁ" -> "fi", "…" ->
// "...", decomposed "é" composed), except for two kinds of characters that keep their own
// form: spacing accents whose compatibility form is a space plus a combining mark (´ ¨ ¸
// ˜ ゛), so "don´t" does not become "don" + space + a stray accent; and vulgar fractions
// (½ ⅔), whose form with a fraction slash would turn "8½" into "81⁄2".
//
// Whether `c` is left as it is by normalisation whatever surrounds it: a starter that
// normalises to itself and never combines with what comes before it. A run of such code
// points needs no normalisation, which is the case of almost all text.
bool normalization_stable(char32_t c);

// Normalises `cps` in place; `scratch` is working space (kept to avoid allocations).
void normalize(CodePoints& cps, CodePoints& scratch);

// The first code point of c's normalised form (what a look-ahead at c sees).
char32_t first_normalized(char32_t c);

// Whether a text may be cut before `c` (which follows `prev`) and each part normalised
// and split into grapheme clusters on its own, with the same result as the whole.
bool safe_cut(char32_t prev, char32_t c);

// Grapheme-cluster breaks (UAX #29 as utf8proc implements it), fed code point by code
// point: start() with the cluster's first code point, then extends() with each next one
// while it returns true ("👍🏽", "👨‍👩‍👧", flags, a letter and its marks).
class GraphemeCluster {
 public:
  void start(char32_t c) {
    last_ = c;
    state_ = 0;
  }
  bool extends(char32_t c);

 private:
  std::int32_t last_ = 0;
  std::int32_t state_ = 0;
};

}  // namespace han::unicode
