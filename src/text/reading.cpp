#include "han/text/reading.h"

#include <algorithm>
#include <climits>
#include <cstdint>

#include "han/core/error.h"

namespace han {

bool reads_whole_text(const ModelConfig& model) {
  return model.linear_member && model.linear_text == LinearText::whole;
}

bool keeps_unknown_words(const ModelConfig& model) {
  return model.linear_member && model.linear_chars != Switch::off;
}

TokenizerOptions reading_options(const Config& cfg) {
  TokenizerOptions o = tokenizer_options(cfg.tokenizer);
  if (reads_whole_text(cfg.model)) {
    // Never fewer than the caps hold, so the HAN's view is whole whatever the caps.
    const std::int64_t within_caps = std::int64_t{cfg.tokenizer.max_sentences} * cfg.tokenizer.max_words;
    o.max_tokens = static_cast<int>(std::clamp<std::int64_t>(within_caps, kMaxWholeTextWords, INT_MAX));
    o.max_sentences = o.max_words = 0;
  }
  return o;
}

Caps document_caps(const TokenizerConfig& tokenizer) {
  HAN_ASSERT(tokenizer.max_sentences != kAutoCap && tokenizer.max_words != kAutoCap);
  return {tokenizer.max_sentences, tokenizer.max_words};
}

void cut_to_caps(TokenizedText& words, TextSpans& spans, Caps caps) {
  const bool with_spans = spans.sentences.size() == words.size();
  if (with_spans) spans.cut.resize(words.size(), false);  // keeps the tokenizer's own marks
  if (caps.sentences > 0 && words.size() > static_cast<std::size_t>(caps.sentences)) {
    words.resize(static_cast<std::size_t>(caps.sentences));
    if (with_spans) {
      spans.sentences.resize(words.size());
      spans.cut.resize(words.size());
      spans.truncated = true;
    }
  }
  if (caps.words <= 0) return;
  const auto max_words = static_cast<std::size_t>(caps.words);
  for (std::size_t s = 0; s < words.size(); ++s) {
    if (words[s].size() <= max_words) continue;
    words[s].resize(max_words);
    if (with_spans) {
      spans.sentences[s].resize(max_words);
      spans.cut[s] = true;
    }
  }
}

}  // namespace han
