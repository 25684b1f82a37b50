// libFuzzer target: the tokenizer on arbitrary bytes. The first byte picks the options
// (lowercase, caps); every result must respect the caps and hold no empty token.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "han/text/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  han::TokenizerOptions o;
  o.lowercase = data[0] & 1;
  o.max_sentences = (data[0] >> 1) & 7;  // 0 = no cap
  o.max_words = (data[0] >> 4) & 15;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  const han::TokenizedText t = han::Tokenizer(o).tokenize(text);
  if (o.max_sentences > 0 && t.size() > static_cast<std::size_t>(o.max_sentences)) std::abort();
  for (const han::Sentence& s : t) {
    if (s.empty()) std::abort();
    if (o.max_words > 0 && s.size() > static_cast<std::size_t>(o.max_words)) std::abort();
    for (const std::string& w : s) {
      if (w.empty() || w.size() > text.size() * 2) std::abort();
    }
  }
  return 0;
}
