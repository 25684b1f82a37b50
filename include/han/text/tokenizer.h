#pragma once
// UTF-8 text -> sentences -> words.
//  - Sentences end after '.', '!' or '?' followed by whitespace, and at line breaks
//    (\n, \r\n, lone \r). Empty sentences are dropped.
//  - Words are runs of letters/digits (any non-ASCII code point that is not
//    punctuation or space counts as a letter), with inner apostrophes (' or U+2019)
//    kept ("don't"); every other punctuation mark or symbol is a one-character token.
//  - Lowercasing covers ASCII, Latin-1, Latin Extended-A, Greek and Cyrillic; other
//    code points are kept intact. Invalid UTF-8 bytes act as separators and never crash.
//  - max_sentences / max_words (0 = no cap) truncate while scanning, so an enormous
//    input costs no more than the capped part (plus one scan to the end is avoided).
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
};

class Tokenizer {
 public:
  explicit Tokenizer(TokenizerOptions options = {}) : options_(options) {}
  TokenizedText tokenize(std::string_view text) const;
  const TokenizerOptions& options() const { return options_; }

 private:
  TokenizerOptions options_;
};

TokenizerOptions tokenizer_options(const TokenizerConfig& cfg);

}  // namespace han
