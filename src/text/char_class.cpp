#include "han/text/char_class.h"

#include <utf8proc.h>

namespace han {
namespace {

AsciiClasses make_ascii_classes() {
  AsciiClasses t{};
  for (int c = 0; c < 128; ++c) {
    CharClass cls = CharClass::separator;
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
      cls = CharClass::word;
    } else if (c == ' ' || c == '\t' || c == '\v' || c == '\f') {
      cls = CharClass::space;
    } else if (c == '\n') {
      cls = CharClass::line_feed;
    } else if (c == '\r') {
      cls = CharClass::carriage_return;
    } else if (c == '.' || c == '!' || c == '?') {
      cls = CharClass::terminator;
    } else if (c == '\'') {
      cls = CharClass::apostrophe;
    } else if (c > 0x20 && c < 0x7F) {
      cls = CharClass::punctuation;
    }
    t.cls[c] = cls;
    t.lower[c] = static_cast<char>((c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c);
  }
  return t;
}

// ---------------------------------------------------------------------------
// Version 1: classes by block, frozen as they were.

CharClass class_v1(char32_t c) {
  using C = CharClass;
  if (c < 0x100) {
    if (c < 0xA0) return c == 0x85 ? C::line_break : C::separator;  // C1 controls; NEL
    if (c == 0xA0) return C::space;                                   // no-break space
    if (c <= 0xBF) {
      // ª ² ³ µ ¹ º are letters/digits; the soft hyphen is invisible; the rest is
      // punctuation or symbols (¡ ¢ £ ¤ ¥ ¦ § ¨ © « ¬ ® ¯ ° ± ´ ¶ · ¸ » ¼ ½ ¾ ¿).
      if (c == 0xAA || c == 0xB2 || c == 0xB3 || c == 0xB5 || c == 0xB9 || c == 0xBA) return C::word;
      if (c == 0xAD) return C::ignored;
      return C::punctuation;
    }
    if (c == 0xD7 || c == 0xF7) return C::punctuation;  // × ÷
    return C::word;
  }
  if (c < 0x1680) return C::word;
  if (c == 0x1680) return C::space;  // ogham space mark
  if (c < 0x2000) return C::word;
  if (c < 0x2070) {
    if (c <= 0x200B) return C::space;  // en quad .. zero width space
    if (c <= 0x200D) return C::joiner;
    if (c <= 0x200F) return C::ignored;  // LRM, RLM
    if (c == 0x2019) return C::apostrophe;
    if (c <= 0x2027) return C::punctuation;  // dashes, quotes, bullets, ellipsis
    if (c <= 0x2029) return C::line_break;
    if (c <= 0x202E) return C::ignored;  // bidi embeddings
    if (c == 0x202F || c == 0x205F) return C::space;
    if (c <= 0x205E) return C::punctuation;
    return C::ignored;  // word joiner, invisible operators, bidi isolates
  }
  if (c >= 0x20A0 && c <= 0x20CF) return C::punctuation;  // currency symbols
  if (c >= 0x2190 && c <= 0x2BFF) return C::punctuation;  // arrows, math, technical, shapes, dingbats
  if (c < 0x3000) return C::word;
  if (c == 0x3000) return C::space;  // ideographic space
  if (c <= 0x303F) return C::punctuation;  // CJK punctuation
  if (c < 0xFE00) return C::word;
  if (c <= 0xFE0F) return C::ignored;  // variation selectors
  if (c == 0xFEFF) return C::space;    // BOM / zero width no-break space
  if (c >= 0xFF01 && c <= 0xFF65) {     // fullwidth and halfwidth forms
    if ((c >= 0xFF10 && c <= 0xFF19) || (c >= 0xFF21 && c <= 0xFF3A) ||
        (c >= 0xFF41 && c <= 0xFF5A)) {
      return C::word;
    }
    return C::punctuation;
  }
  if (c == 0xFFFD) return C::separator;  // replacement character: the trace of a decoding error
  if (c < 0x1F000) return C::word;
  if (c >= 0x1F3FB && c <= 0x1F3FF) return C::ignored;  // skin tone modifiers
  if (c <= 0x1FAFF) return C::punctuation;              // emoji and pictographs
  if (c >= 0xE0000 && c <= 0xE007F) return C::ignored;  // tags
  return C::word;
}

// Lowercase for Latin-1, Latin Extended-A, Greek and Cyrillic.
char32_t lower_v1(char32_t c) {
  if (c < 0x100) return (c >= 0xC0 && c <= 0xDE && c != 0xD7) ? c + 0x20 : c;
  if (c < 0x180) {
    if (c == 0x130) return 'i';   // İ
    if (c == 0x178) return 0xFF;  // Ÿ -> ÿ
    if ((c <= 0x12F) || (c >= 0x132 && c <= 0x137) || (c >= 0x14A && c <= 0x177)) return c | 1;
    if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E)) return (c & 1) ? c + 1 : c;
    return c;
  }
  if (c < 0x386) return c;
  if (c < 0x3B0) {  // Greek capitals
    if (c == 0x386) return 0x3AC;
    if (c >= 0x388 && c <= 0x38A) return c + 0x25;
    if (c == 0x38C) return 0x3CC;
    if (c == 0x38E || c == 0x38F) return c + 0x3F;
    if (c >= 0x391 && c <= 0x3AB && c != 0x3A2) return c + 0x20;
    return c;
  }
  if (c < 0x400 || c > 0x52F) return c;
  if (c <= 0x40F) return c + 0x50;  // Ѐ..Џ
  if (c <= 0x42F) return c + 0x20;  // А..Я
  if ((c >= 0x460 && c <= 0x481) || (c >= 0x48A && c <= 0x4BF) || c >= 0x4D0) return c | 1;
  if (c == 0x4C0) return 0x4CF;
  if (c >= 0x4C1 && c <= 0x4CE) return (c & 1) ? c + 1 : c;
  return c;
}

// ---------------------------------------------------------------------------
// Version 2: Unicode general categories.

// Han, Hiragana, Katakana, Thai, Lao, Khmer and Myanmar, which separate words by no space.
bool written_without_spaces(char32_t c) {
  return (c >= 0x0E00 && c <= 0x0EFF) ||                     // Thai, Lao
         (c >= 0x1000 && c <= 0x109F) ||                     // Myanmar
         (c >= 0x1780 && c <= 0x17FF) ||                     // Khmer
         (c >= 0x2E80 && c <= 0x2FDF) ||                     // CJK and Kangxi radicals
         (c >= 0x3005 && c <= 0x3007) ||                     // 々 〆 〇
         (c >= 0x3021 && c <= 0x3029) ||                     // Hangzhou numerals
         (c >= 0x3031 && c <= 0x303B) ||                     // kana repeat marks, 〻
         (c >= 0x3040 && c <= 0x30FF) ||                     // Hiragana, Katakana
         (c >= 0x31F0 && c <= 0x31FF) ||                     // Katakana phonetic extensions
         (c >= 0x3400 && c <= 0x4DBF) ||                     // CJK extension A
         (c >= 0x4E00 && c <= 0x9FFF) ||                     // CJK unified ideographs
         (c >= 0xA9E0 && c <= 0xA9FF) ||                     // Myanmar extended B
         (c >= 0xAA60 && c <= 0xAA7F) ||                     // Myanmar extended A
         (c >= 0xF900 && c <= 0xFAFF) ||                     // CJK compatibility ideographs
         (c >= 0xFF66 && c <= 0xFF9F) ||                     // halfwidth Katakana
         (c >= 0x16FE0 && c <= 0x16FFF) ||                   // ideographic symbols
         (c >= 0x1AFF0 && c <= 0x1B16F) ||                   // kana supplement and extensions
         (c >= 0x20000 && c <= 0x323AF);                     // CJK extensions B..H
}

CharClass class_v2(char32_t c) {
  using C = CharClass;
  switch (c) {
    case 0x85: case 0x2028: case 0x2029: return C::line_break;
    case 0x200B: case 0xFEFF: return C::space;  // zero width space, BOM
    case 0x200C: case 0x200D: return C::joiner;
    case 0x2019: case 0x05F3: case 0x05F4: return C::apostrophe;  // ’ and Hebrew geresh, gershayim
    case 0xFFFD: return C::separator;  // replacement character: the trace of a decoding error
    default: break;
  }
  const utf8proc_property_t* p = utf8proc_get_property(static_cast<utf8proc_int32_t>(c));
  if (p->ignorable) return C::ignored;  // soft hyphen, variation selectors, bidi marks, tags...
  switch (p->category) {
    case UTF8PROC_CATEGORY_LU: case UTF8PROC_CATEGORY_LL: case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM: case UTF8PROC_CATEGORY_LO: case UTF8PROC_CATEGORY_NL:
      return written_without_spaces(c) ? C::unspaced_letter : C::word;
    case UTF8PROC_CATEGORY_PC: case UTF8PROC_CATEGORY_PD: case UTF8PROC_CATEGORY_PS:
    case UTF8PROC_CATEGORY_PE: case UTF8PROC_CATEGORY_PI: case UTF8PROC_CATEGORY_PF:
    case UTF8PROC_CATEGORY_PO: case UTF8PROC_CATEGORY_SM: case UTF8PROC_CATEGORY_SC:
    case UTF8PROC_CATEGORY_SK: case UTF8PROC_CATEGORY_SO:
      return C::punctuation;
    case UTF8PROC_CATEGORY_ZS: return C::space;
    case UTF8PROC_CATEGORY_ZL: case UTF8PROC_CATEGORY_ZP: return C::line_break;
    case UTF8PROC_CATEGORY_CC: case UTF8PROC_CATEGORY_CS: return C::separator;
    case UTF8PROC_CATEGORY_CF: return C::ignored;
    default: return C::word;  // marks, digits, other numbers, private use, unassigned
  }
}

}  // namespace

const AsciiClasses kAsciiClasses = make_ascii_classes();

CharClass char_class(char32_t c, int version) {
  if (c < 0x80) return ascii_class(static_cast<unsigned char>(c));
  return version == 1 ? class_v1(c) : class_v2(c);
}

char32_t to_lower(char32_t c, int version) {
  if (c < 0x80) return static_cast<unsigned char>(ascii_lower(static_cast<unsigned char>(c)));
  if (version == 1) return lower_v1(c);
  return static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(c)));
}

bool is_cased_letter(char32_t c) {
  const utf8proc_category_t cat = utf8proc_category(static_cast<utf8proc_int32_t>(c));
  return cat == UTF8PROC_CATEGORY_LU || cat == UTF8PROC_CATEGORY_LL || cat == UTF8PROC_CATEGORY_LT;
}

}  // namespace han
