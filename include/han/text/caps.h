#pragma once
// The caps on document length (tokenizer.max_sentences, max_words) measured against the
// training text: how much of it they keep, and for "auto" the smallest caps that keep
// about 95 % of its tokens. Long documents then keep most of their words (20news loses
// more than half at the paper's 30 x 50) while short ones are not padded to caps they
// never reach; bucketing keeps the padding of the rest down.
#include <cstdint>
#include <vector>

#include "han/core/config.h"
#include "han/text/tokenizer.h"

namespace han {

// Each training document's sentence lengths, uncapped.
using DocumentShapes = std::vector<std::vector<std::int32_t>>;

struct CapChoice {
  int max_sentences = 0, max_words = 0;
  double kept_fraction = 1;  // of the training tokens
};

constexpr double kAutoCapKeep = 0.95;
// Auto caps stop here: beyond, a document costs more than its last words are worth.
constexpr int kAutoMaxSentences = 400;
constexpr int kAutoMaxWords = 200;

// The fraction of the tokens of `shapes` kept by caps (S, W).
double kept_fraction(const DocumentShapes& shapes, int max_sentences, int max_words);

// The caps of `cfg` with each kAutoCap replaced by the smallest cap that keeps
// sqrt(kAutoCapKeep) of the tokens at its level (so about kAutoCapKeep in all).
CapChoice choose_caps(const DocumentShapes& shapes, const TokenizerConfig& cfg);

// Tokenizes every text without caps and records its shape.
DocumentShapes document_shapes(const std::vector<std::string_view>& texts, const TokenizerConfig& cfg);

}  // namespace han
