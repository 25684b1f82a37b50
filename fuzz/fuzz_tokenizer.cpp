// libFuzzer target: the tokenizer on arbitrary bytes, under every rule version. The first
// byte picks the options (lowercase, caps). Every result must respect the caps, hold only
// non-empty valid UTF-8 tokens, and equal the uncapped result truncated; under the Unicode
// rules, valid UTF-8 text must tokenize as its normalised form does. With spans, the tokens
// are the same, and the spans (one per token) increase, never overlap and stay in the text.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "han/text/tokenizer.h"
#include "han/text/unicode.h"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

// The code points of `text`, or false when it is not valid UTF-8.
bool decode_all(std::string_view text, han::unicode::CodePoints& out) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  for (std::size_t i = 0; i < text.size();) {
    char32_t cp = 0;
    const std::size_t len = han::unicode::decode_utf8(p + i, text.size() - i, cp);
    if (len == 0) return false;
    out.push_back(static_cast<std::int32_t>(cp));
    i += len;
  }
  return true;
}

void check_tokens(const han::TokenizedText& t, const han::TokenizerOptions& o) {
  if (o.max_sentences > 0) check(t.size() <= static_cast<std::size_t>(o.max_sentences));
  for (const han::Sentence& s : t) {
    check(!s.empty());
    if (o.max_words > 0) check(s.size() <= static_cast<std::size_t>(o.max_words));
    for (const std::string& w : s) {
      han::unicode::CodePoints cps;
      check(!w.empty() && decode_all(w, cps));
    }
  }
}

void check_version(std::string_view text, han::TokenizerOptions capped) {
  han::TokenizerOptions uncapped = capped;
  uncapped.max_sentences = uncapped.max_words = 0;
  const han::TokenizedText t = han::Tokenizer(capped).tokenize(text);
  han::TokenizedText expected = han::Tokenizer(uncapped).tokenize(text);
  check_tokens(t, capped);
  check_tokens(expected, uncapped);
  if (capped.max_sentences > 0 && expected.size() > static_cast<std::size_t>(capped.max_sentences)) {
    expected.resize(static_cast<std::size_t>(capped.max_sentences));
  }
  for (han::Sentence& s : expected) {
    if (capped.max_words > 0 && s.size() > static_cast<std::size_t>(capped.max_words)) {
      s.resize(static_cast<std::size_t>(capped.max_words));
    }
  }
  check(t == expected);
  han::TextSpans spans;
  check(han::Tokenizer(capped).tokenize(text, spans) == t);
  check(spans.sentences.size() == t.size() && spans.cut.size() == t.size());
  std::size_t last = 0;
  for (std::size_t s = 0; s < t.size(); ++s) {
    check(spans.sentences[s].size() == t[s].size());
    for (const han::TokenSpan& span : spans.sentences[s]) {
      check(last <= span.begin && span.begin <= span.end && span.end <= text.size());
      last = span.end;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  han::TokenizerOptions o;
  o.lowercase = data[0] & 1;
  o.max_sentences = (data[0] >> 1) & 7;  // 0 = no cap
  o.max_words = (data[0] >> 4) & 15;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  for (int version : {1, 2, 3}) {
    o.version = version;
    check_version(text, o);
  }
  han::unicode::CodePoints cps, scratch;
  if (decode_all(text, cps)) {
    han::unicode::normalize(cps, scratch);
    std::string normalised;
    for (const std::int32_t cp : cps) han::unicode::append_utf8(normalised, static_cast<char32_t>(cp));
    const han::Tokenizer tokenizer(o);
    check(tokenizer.tokenize(text) == tokenizer.tokenize(normalised));
  }
  return 0;
}
