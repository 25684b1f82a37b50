#pragma once
// How a model reads a document's text. The HAN reads the words within the tokenizer's caps
// (max_sentences, max_words); the linear member reads the whole document unless
// model.linear_text is "caps". Text is tokenized whole when the member reads it whole,
// and the caps then shape the HAN's view in Documents; else it is tokenized within them.
#include "han/core/config.h"
#include "han/text/documents.h"
#include "han/text/tokenizer.h"

namespace han {

// The words of a document read whole, at most (or what the caps hold, when more): a bound
// on the memory a huge document takes (a line of data holds at most core/limits.h's
// kMaxLineBytes, 16 MB); the text after them is not read.
constexpr int kMaxWholeTextWords = 1 << 17;

// Whether a model of `model` keeps every word of a document (for its linear member).
bool reads_whole_text(const ModelConfig& model);
// Whether documents read for a model of `model` keep their words that read as <unk> (its
// linear member's character n-grams read them: model.linear_chars).
bool keeps_unknown_words(const ModelConfig& model);
// The tokenizer options for reading documents for a model of `cfg` (caps never "auto").
TokenizerOptions reading_options(const Config& cfg);
// The caps of the HAN's view of the documents (never "auto").
Caps document_caps(const TokenizerConfig& tokenizer);

// The words of a tokenized text cut to `caps` for display: `spans` (if it matches) marks the
// sentences cut short and the text left unread, as the tokenizer does with caps.
void cut_to_caps(TokenizedText& words, TextSpans& spans, Caps caps);

}  // namespace han
