#pragma once
// What each character does to the token stream, under either version of the tokenizer
// rules (tokenizer.version, kept in each model's config):
//  2 and 3: Unicode's properties through utf8proc, applied to normalised text (3 differs
//     only in where sentences end: tokenizer.cpp);
//  1: the rules before Unicode support (classes by block; case for Latin-1, Latin
//     Extended-A, Greek and Cyrillic only), kept so older models tokenize as they were trained.
#include <cstdint>

namespace han {

enum class CharClass : unsigned char {
  separator,        // ends a word and is dropped: controls, invalid bytes, U+FFFD
  space,            // whitespace: ends a word; after a terminator it ends the sentence
  line_feed,        // '\n'
  carriage_return,  // '\r' (alone or as part of "\r\n")
  line_break,       // other line breaks: U+0085, U+2028, U+2029
  terminator,       // '.', '!', '?': one-character tokens that may end a sentence
  punctuation,      // any other punctuation mark or symbol: a token of its own
  apostrophe,       // ' and U+2019: inside a word between word characters, else a token
  joiner,           // U+200C/U+200D: inside a word between word characters, else dropped
  ignored,          // invisible format characters: dropped without ending a word
  word,             // letters, digits and combining marks of scripts written with spaces
  unspaced_letter,  // a letter of a script written without spaces: a token of its own (version 2)
};

struct AsciiClasses {
  CharClass cls[128];
  char lower[128];
};
extern const AsciiClasses kAsciiClasses;

inline CharClass ascii_class(unsigned char c) { return kAsciiClasses.cls[c]; }
inline char ascii_lower(unsigned char c) { return kAsciiClasses.lower[c]; }

// The class and lowercase of any code point (ASCII included) under rules `version`.
CharClass char_class(char32_t c, int version);
char32_t to_lower(char32_t c, int version);

// Whether c has case (Lu, Ll, Lt): a final capital sigma lowercases to ς only after one.
bool is_cased_letter(char32_t c);

}  // namespace han
