#pragma once
// The Unicode machinery under the tokenizer (utf8proc, Unicode 15): UTF-8 decoding,
// normalisation and grapheme-cluster breaks. Only src/text/ links utf8proc.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "han/core/utf8.h"

namespace han::unicode {

using CodePoints = std::vector<std::int32_t>;

// UTF-8 decoding and encoding are core's (one for the tokenizer, the label checks and the
// decoding of text that is not UTF-8).
using han::append_utf8;
using han::decode_utf8;

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
