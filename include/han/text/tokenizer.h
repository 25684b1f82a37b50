#pragma once
// UTF-8 text -> sentences -> words.
//  - The text is normalised (NFKC, see unicode.h): composed and decomposed "é" are one
//    word, fullwidth "ｅ" is "e", "…" is "...".
//  - Sentences end after '.', '!' or '?' followed by whitespace, and at line breaks
//    (\n, \r\n, lone \r, U+0085, U+2028, U+2029). Empty sentences are dropped.
//    Version 3 reads the text around a period: a title or Latin abbreviation (Mr., Dr.,
//    St., vs., e.g., i.e.), an initial or upper-case initialism (J., U.S.) never ends a
//    sentence; etc., Inc., a.m., No., a month and an ellipsis end one only before a capital
//    (or a symbol, or the end), not before a lower-case word or a digit; a terminator
//    inside closing quotes or brackets ends the sentence after them, unless a lower-case
//    word follows ("Run!" he said). Versions 1 and 2 end a sentence at every terminator
//    followed by whitespace.
//  - Words are runs of letters, digits and combining marks, with inner apostrophes
//    (' or U+2019) kept ("don't"). Every other punctuation mark or symbol is a token of its
//    own, one grapheme cluster long ("👍🏽" and "👨‍👩‍👧" are one token each). Letters of
//    scripts written without spaces (Han, Hiragana, Katakana, Thai, Lao, Khmer, Myanmar)
//    are one token each, with their combining marks.
//  - Lowercasing follows Unicode (a final capital sigma becomes ς). Invalid UTF-8 bytes
//    act as separators and never crash.
//  - max_sentences / max_words (0 = no cap) truncate while scanning, so an enormous
//    input costs no more than the capped part (plus a scan for the ends of sentences).
//  - Pure ASCII text takes a fast path that never calls the Unicode library.
//  - tokenize(text, spans) also says where each token came from: the bytes [begin, end) of
//    `text` that it is read from, as written (case, accents, fullwidth forms, "…"). Spans
//    increase and never overlap; a token that normalisation made from the same characters
//    as the token before it ("…" is three periods, "㏂" is a . m .) gets an empty span where
//    that one ends. It also says which sentences lost words to max_words and whether
//    sentences were left unread (max_sentences). Without spans, tokenize does no extra work.
//  - `version` 1 keeps the rules before Unicode support, and 2 the sentence ends before
//    version 3, for models trained with them (see char_class.h and docs/data.md).
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "han/core/config.h"

namespace han {

using Sentence = std::vector<std::string>;
using TokenizedText = std::vector<Sentence>;

struct TokenizerOptions {
  bool lowercase = true;
  int max_sentences = 0;  // 0 = no cap
  int max_words = 0;      // per sentence; 0 = no cap
  int max_tokens = 0;     // per document, the text after them not read; 0 = no cap
  int version = kTokenizerVersion;  // rules: 3 = 2 with sentence rules, 2 = Unicode, 1 = before Unicode support
};

// Bytes [begin, end) of the tokenized text.
struct TokenSpan {
  std::size_t begin = 0;
  std::size_t end = 0;
};

// Where the tokens of a text came from, sentence by sentence (as the TokenizedText).
struct TextSpans {
  std::vector<std::vector<TokenSpan>> sentences;
  std::vector<bool> cut;   // per sentence: words after its last were dropped (max_words)
  bool truncated = false;  // text after the last sentence was not read (max_sentences)
};

class Tokenizer {
 public:
  explicit Tokenizer(TokenizerOptions options = {}) : options_(options) {}
  TokenizedText tokenize(std::string_view text) const;
  // The same tokens, and where each came from in `text` (see above).
  TokenizedText tokenize(std::string_view text, TextSpans& spans) const;
  const TokenizerOptions& options() const { return options_; }

 private:
  TokenizerOptions options_;
};

TokenizerOptions tokenizer_options(const TokenizerConfig& cfg);

}  // namespace han
