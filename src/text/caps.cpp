#include "han/text/caps.h"

#include <algorithm>
#include <cmath>

namespace han {
namespace {

double total_tokens(const DocumentShapes& shapes) {
  double n = 0;
  for (const auto& doc : shapes)
    for (std::int32_t len : doc) n += len;
  return n;
}

// Tokens kept by caps (S, W); S or W of 0 = no cap.
double kept_tokens(const DocumentShapes& shapes, int max_sentences, int max_words) {
  double n = 0;
  for (const auto& doc : shapes) {
    const std::size_t s_end = max_sentences > 0 ? std::min(doc.size(), static_cast<std::size_t>(max_sentences)) : doc.size();
    for (std::size_t s = 0; s < s_end; ++s) n += max_words > 0 ? std::min(doc[s], max_words) : doc[s];
  }
  return n;
}

// The smallest cap in [1, limit] whose kept tokens (kept(cap), rising with cap) reach
// target, or limit.
template <class Kept>
int smallest_cap(int limit, double target, Kept&& kept) {
  int lo = 1, hi = limit;
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    if (kept(mid) >= target) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

}  // namespace

double kept_fraction(const DocumentShapes& shapes, int max_sentences, int max_words) {
  const double total = total_tokens(shapes);
  return total > 0 ? kept_tokens(shapes, max_sentences, max_words) / total : 1.0;
}

CapChoice choose_caps(const DocumentShapes& shapes, const TokenizerConfig& cfg) {
  const double per_level = std::sqrt(kAutoCapKeep);
  CapChoice c{cfg.max_sentences, cfg.max_words, 1};
  if (c.max_words == kAutoCap) {
    const double target = per_level * total_tokens(shapes);
    c.max_words = smallest_cap(kAutoMaxWords, target, [&](int w) { return kept_tokens(shapes, 0, w); });
  }
  if (c.max_sentences == kAutoCap) {
    const double target = per_level * kept_tokens(shapes, 0, c.max_words);
    c.max_sentences =
        smallest_cap(kAutoMaxSentences, target, [&](int s) { return kept_tokens(shapes, s, c.max_words); });
  }
  c.kept_fraction = kept_fraction(shapes, c.max_sentences, c.max_words);
  return c;
}

DocumentShapes document_shapes(const std::vector<std::string_view>& texts, const TokenizerConfig& cfg) {
  TokenizerOptions options = tokenizer_options(cfg);
  options.max_sentences = options.max_words = 0;
  const Tokenizer tokenizer(options);
  DocumentShapes shapes;
  shapes.reserve(texts.size());
  for (std::string_view text : texts) {
    std::vector<std::int32_t> lengths;
    for (const Sentence& s : tokenizer.tokenize(text)) lengths.push_back(static_cast<std::int32_t>(s.size()));
    shapes.push_back(std::move(lengths));
  }
  return shapes;
}

}  // namespace han
