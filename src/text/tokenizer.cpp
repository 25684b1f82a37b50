#include "han/text/tokenizer.h"

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>

namespace han {

TokenizerOptions tokenizer_options(const TokenizerConfig& cfg) {
  TokenizerOptions o;
  o.lowercase = cfg.lowercase;
  o.max_sentences = cfg.max_sentences;
  o.max_words = cfg.max_words;
  return o;
}
namespace {

// What a code point does to the token stream.
enum Cat : unsigned char {
  kSep,     // separator that is not whitespace (controls, invalid bytes, U+FFFD)
  kSpace,   // whitespace: ends a word; after '.', '!' or '?' it ends the sentence
  kLF,      // '\n'
  kCR,      // '\r' (alone or as part of "\r\n")
  kBreakU,  // other line breaks: U+0085, U+2028, U+2029
  kTerm,    // '.', '!', '?': one-character tokens that may end a sentence
  kPunct,   // any other punctuation mark or symbol: a one-character token
  kApos,    // ' and U+2019: inside a word between letters/digits, else a token
  kJoiner,  // U+200C/U+200D: inside a word between letters, else dropped
  kIgnore,  // invisible format characters: dropped without ending a word
  kWord,    // letters and digits
};

struct AsciiTable {
  unsigned char cat[128];
  char lower[128];
};

AsciiTable make_ascii_table() {
  AsciiTable t{};
  for (int c = 0; c < 128; ++c) {
    unsigned char cat = kSep;
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
      cat = kWord;
    } else if (c == ' ' || c == '\t' || c == '\v' || c == '\f') {
      cat = kSpace;
    } else if (c == '\n') {
      cat = kLF;
    } else if (c == '\r') {
      cat = kCR;
    } else if (c == '.' || c == '!' || c == '?') {
      cat = kTerm;
    } else if (c == '\'') {
      cat = kApos;
    } else if (c > 0x20 && c < 0x7F) {
      cat = kPunct;
    }
    t.cat[c] = cat;
    t.lower[c] = static_cast<char>((c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c);
  }
  return t;
}

const AsciiTable kAscii = make_ascii_table();

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

inline void append_utf8(std::string& out, char32_t c) {
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

// Category of a non-ASCII code point.
inline Cat classify(char32_t c) {
  if (c < 0x100) {
    if (c < 0xA0) return c == 0x85 ? kBreakU : kSep;  // C1 controls; NEL is a line break
    if (c == 0xA0) return kSpace;                      // no-break space
    if (c <= 0xBF) {
      // ª ² ³ µ ¹ º are letters/digits; the soft hyphen is invisible; the rest is
      // punctuation or symbols (¡ ¢ £ ¤ ¥ ¦ § ¨ © « ¬ ® ¯ ° ± ´ ¶ · ¸ » ¼ ½ ¾ ¿).
      if (c == 0xAA || c == 0xB2 || c == 0xB3 || c == 0xB5 || c == 0xB9 || c == 0xBA) return kWord;
      if (c == 0xAD) return kIgnore;
      return kPunct;
    }
    if (c == 0xD7 || c == 0xF7) return kPunct;  // × ÷
    return kWord;
  }
  if (c < 0x1680) return kWord;
  if (c == 0x1680) return kSpace;  // ogham space mark
  if (c < 0x2000) return kWord;
  if (c < 0x2070) {
    if (c <= 0x200B) return kSpace;  // en quad .. zero width space
    if (c <= 0x200D) return kJoiner;
    if (c <= 0x200F) return kIgnore;  // LRM, RLM
    if (c == 0x2019) return kApos;
    if (c <= 0x2027) return kPunct;  // dashes, quotes, bullets, ellipsis
    if (c <= 0x2029) return kBreakU;
    if (c <= 0x202E) return kIgnore;  // bidi embeddings
    if (c == 0x202F || c == 0x205F) return kSpace;
    if (c <= 0x205E) return kPunct;
    return kIgnore;  // word joiner, invisible operators, bidi isolates
  }
  if (c >= 0x20A0 && c <= 0x20CF) return kPunct;  // currency symbols
  if (c >= 0x2190 && c <= 0x2BFF) return kPunct;  // arrows, math, technical, shapes, dingbats
  if (c < 0x3000) return kWord;
  if (c == 0x3000) return kSpace;  // ideographic space
  if (c <= 0x303F) return kPunct;  // CJK punctuation
  if (c < 0xFE00) return kWord;
  if (c <= 0xFE0F) return kIgnore;  // variation selectors
  if (c == 0xFEFF) return kSpace;   // BOM / zero width no-break space
  if (c >= 0xFF01 && c <= 0xFF65) {  // fullwidth and halfwidth forms
    if ((c >= 0xFF10 && c <= 0xFF19) || (c >= 0xFF21 && c <= 0xFF3A) ||
        (c >= 0xFF41 && c <= 0xFF5A)) {
      return kWord;
    }
    return kPunct;
  }
  if (c == 0xFFFD) return kSep;  // replacement character: the trace of a decoding error
  if (c < 0x1F000) return kWord;
  if (c >= 0x1F3FB && c <= 0x1F3FF) return kIgnore;  // skin tone modifiers
  if (c <= 0x1FAFF) return kPunct;                   // emoji and pictographs
  if (c >= 0xE0000 && c <= 0xE007F) return kIgnore;  // tags
  return kWord;
}

// Lowercase of a non-ASCII code point for Latin-1, Latin Extended-A, Greek and Cyrillic.
inline char32_t to_lower(char32_t c) {
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

// Bytes that may end a sentence; used to skip the rest of a sentence that hit max_words.
struct SkipTable {
  bool interesting[256];
};

SkipTable make_skip_table() {
  SkipTable t{};
  for (unsigned char b : {'.', '!', '?', '\n', '\r'}) t.interesting[b] = true;
  t.interesting[0xC2] = true;  // lead byte of U+0085
  t.interesting[0xE2] = true;  // lead byte of U+2028, U+2029
  return t;
}

const SkipTable kSkip = make_skip_table();

class Scanner {
 public:
  Scanner(std::string_view text, const TokenizerOptions& o)
      : s_(reinterpret_cast<const unsigned char*>(text.data())),
        n_(text.size()),
        lower_(o.lowercase),
        max_sentences_(o.max_sentences > 0 ? static_cast<std::size_t>(o.max_sentences)
                                           : std::numeric_limits<std::size_t>::max()),
        max_words_(o.max_words > 0 ? static_cast<std::size_t>(o.max_words)
                                   : std::numeric_limits<std::size_t>::max()) {}

  TokenizedText run() {
    std::size_t i = 0;
    while (i < n_) {
      if (sentence_.size() >= max_words_ && word_.empty()) {
        // The sentence is full: find its end without building tokens.
        if (!skip_to_sentence_end(i)) break;
        if (end_sentence()) return std::move(out_);
        continue;
      }
      unsigned char c = s_[i];
      if (c < 0x80) {
        switch (kAscii.cat[c]) {
          case kWord:
            do {
              word_.push_back(lower_ ? kAscii.lower[c] : static_cast<char>(c));
              ++i;
            } while (i < n_ && (c = s_[i]) < 0x80 && kAscii.cat[c] == kWord);
            continue;
          case kSpace:
            flush_word();
            ++i;
            continue;
          case kLF:
            ++i;
            if (end_sentence()) return std::move(out_);
            continue;
          case kCR:
            ++i;
            if (i < n_ && s_[i] == '\n') ++i;
            if (end_sentence()) return std::move(out_);
            continue;
          case kTerm:
            push_token(i, 1);
            ++i;
            if (space_at(i) && end_sentence()) return std::move(out_);
            continue;
          case kPunct:
            push_token(i, 1);
            ++i;
            continue;
          case kApos:
            if (!word_.empty() && word_at(i + 1)) {
              word_.push_back('\'');
            } else {
              push_token(i, 1);
            }
            ++i;
            continue;
          default:
            flush_word();
            ++i;
            continue;
        }
      }
      char32_t cp = 0;
      const std::size_t len = decode_utf8(s_ + i, n_ - i, cp);
      if (len == 0) {  // invalid byte: a separator
        flush_word();
        ++i;
        continue;
      }
      switch (classify(cp)) {
        case kWord:
          if (lower_) {
            const char32_t lc = to_lower(cp);
            if (lc != cp) {
              append_utf8(word_, lc);
              break;
            }
          }
          word_.append(reinterpret_cast<const char*>(s_ + i), len);
          break;
        case kSpace:
          flush_word();
          break;
        case kBreakU:
          if (end_sentence()) return std::move(out_);
          break;
        case kPunct:
          push_token(i, len);
          break;
        case kApos:
          if (!word_.empty() && word_at(i + len)) {
            word_.append(reinterpret_cast<const char*>(s_ + i), len);
          } else {
            push_token(i, len);
          }
          break;
        case kJoiner:
          if (!word_.empty() && word_at(i + len)) {
            word_.append(reinterpret_cast<const char*>(s_ + i), len);
          }
          break;
        case kIgnore:
          break;
        default:
          flush_word();
          break;
      }
      i += len;
    }
    end_sentence();
    return std::move(out_);
  }

 private:
  void flush_word() {
    if (word_.empty()) return;
    if (sentence_.size() < max_words_) sentence_.push_back(word_);
    word_.clear();  // keeps the capacity: no allocation per character
  }

  void push_token(std::size_t i, std::size_t len) {
    flush_word();
    if (sentence_.size() < max_words_) {
      sentence_.emplace_back(reinterpret_cast<const char*>(s_ + i), len);
    }
  }

  // Closes the current sentence; true when max_sentences is reached.
  bool end_sentence() {
    flush_word();
    if (sentence_.empty()) return false;
    // One exact-size allocation per sentence; the buffer keeps its capacity.
    out_.emplace_back(std::make_move_iterator(sentence_.begin()),
                      std::make_move_iterator(sentence_.end()));
    sentence_.clear();
    return out_.size() >= max_sentences_;
  }

  Cat cat_at(std::size_t j, std::size_t* len = nullptr) const {
    const unsigned char c = s_[j];
    if (c < 0x80) {
      if (len) *len = 1;
      return static_cast<Cat>(kAscii.cat[c]);
    }
    char32_t cp = 0;
    const std::size_t l = decode_utf8(s_ + j, n_ - j, cp);
    if (len) *len = l == 0 ? 1 : l;
    return l == 0 ? kSep : classify(cp);
  }

  // Whether the code point at j is whitespace or a line break (true at the end).
  bool space_at(std::size_t j) const {
    if (j >= n_) return true;
    const Cat c = cat_at(j);
    return c == kSpace || c == kLF || c == kCR || c == kBreakU;
  }

  bool word_at(std::size_t j) const { return j < n_ && cat_at(j) == kWord; }

  // Moves i past the end of the current sentence (the terminator, or the line break).
  // Returns false when the text ends first.
  bool skip_to_sentence_end(std::size_t& i) const {
    for (std::size_t j = i; j < n_; ++j) {
      const unsigned char c = s_[j];
      if (!kSkip.interesting[c]) continue;
      if (c == '.' || c == '!' || c == '?') {
        if (space_at(j + 1)) {
          i = j + 1;
          return true;
        }
      } else if (c == '\n') {
        i = j + 1;
        return true;
      } else if (c == '\r') {
        i = j + 1;
        if (i < n_ && s_[i] == '\n') ++i;
        return true;
      } else {
        std::size_t len = 1;
        if (cat_at(j, &len) == kBreakU) {
          i = j + len;
          return true;
        }
      }
    }
    i = n_;
    return false;
  }

  const unsigned char* s_;
  std::size_t n_;
  bool lower_;
  std::size_t max_sentences_;
  std::size_t max_words_;
  TokenizedText out_;
  Sentence sentence_;
  std::string word_;
};

}  // namespace

TokenizedText Tokenizer::tokenize(std::string_view text) const {
  return Scanner(text, options_).run();
}

}  // namespace han
