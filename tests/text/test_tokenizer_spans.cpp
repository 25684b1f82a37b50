// Where tokens come from: tokenize(text, spans) gives each token the bytes of the text it
// was read from, under every tokenizer version, with or without lowercasing and caps.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "han/text/reading.h"
#include "han/text/tokenizer.h"

using han::TextSpans;
using han::TokenizedText;
using han::Tokenizer;
using han::TokenizerOptions;
using han::TokenSpan;

namespace {

Tokenizer make(int version, bool lowercase = true, int max_sentences = 0, int max_words = 0) {
  TokenizerOptions o;
  o.version = version;
  o.lowercase = lowercase;
  o.max_sentences = max_sentences;
  o.max_words = max_words;
  return Tokenizer(o);
}

std::vector<std::string> flat(const TokenizedText& t) {
  std::vector<std::string> out;
  for (const auto& s : t) out.insert(out.end(), s.begin(), s.end());
  return out;
}

std::vector<std::string> written(const std::string& text, const TextSpans& spans) {
  std::vector<std::string> out;
  for (const auto& s : spans.sentences)
    for (const TokenSpan& sp : s) out.push_back(text.substr(sp.begin, sp.end - sp.begin));
  return out;
}

// The properties every text must have; returns a description of the first failure, or "".
std::string check(const std::string& text, const Tokenizer& tok, bool text_of_token = true) {
  TextSpans spans;
  const TokenizedText tokens = tok.tokenize(text, spans);
  if (tokens != tok.tokenize(text)) return "the tokens differ from tokenize(text)'s";
  if (spans.sentences.size() != tokens.size() || spans.cut.size() != tokens.size()) return "one span list per sentence";
  std::vector<std::string> words;
  std::vector<TokenSpan> all;
  for (std::size_t s = 0; s < tokens.size(); ++s) {
    if (spans.sentences[s].size() != tokens[s].size()) return "one span per token";
    words.insert(words.end(), tokens[s].begin(), tokens[s].end());
    all.insert(all.end(), spans.sentences[s].begin(), spans.sentences[s].end());
  }
  std::size_t last = 0;
  for (const TokenSpan& sp : all) {
    if (sp.begin < last) return "spans overlap or go back";
    if (sp.end < sp.begin || sp.end > text.size()) return "a span outside the text";
    last = sp.end;
  }
  if (!text_of_token) return "";
  // A token's span, tokenized alone (no caps), gives that token and the tokens after it
  // with empty spans (made from the same characters: "…" is three periods).
  const TokenizerOptions& o = tok.options();
  const Tokenizer alone = make(o.version, o.lowercase);
  for (std::size_t i = 0; i < all.size();) {
    if (all[i].begin == all[i].end) return "token " + std::to_string(i) + " (" + words[i] + ") has no characters";
    std::size_t j = i + 1;
    while (j < all.size() && all[j].begin == all[j].end) ++j;
    const std::vector<std::string> group(words.begin() + static_cast<long>(i), words.begin() + static_cast<long>(j));
    const std::string source = text.substr(all[i].begin, all[i].end - all[i].begin);
    // (Under caps the tokens after it that came from its characters may have been dropped.)
    std::vector<std::string> read = flat(alone.tokenize(source));
    if (read.size() > group.size() && (o.max_words > 0 || o.max_sentences > 0)) read.resize(group.size());
    if (read != group) return "the span of token " + std::to_string(i) + " (" + words[i] + ") is \"" + source + "\"";
    i = j;
  }
  return "";
}

}  // namespace

TEST_CASE("tokenizer spans: the words as written", "[tokenizer][spans]") {
  const std::string text = "Great FILM, \"really\" <b>good</b>!  Mr. Poirot\u2019s caf\u00E9\u2026 Ｆｕｌｌ ﬁne e\u0301t\u00E9.";
  for (int version : {1, 2, 3}) {
    INFO("version " << version);
    TextSpans spans;
    const TokenizedText tokens = make(version).tokenize(text, spans);
    const std::vector<std::string> w = written(text, spans);
    REQUIRE(w.size() == flat(tokens).size());
    CHECK(w[0] == "Great");
    CHECK(w[1] == "FILM");
    CHECK(w[2] == ",");
    CHECK(w[3] == "\"");
    CHECK(w[4] == "really");
    CHECK(w[6] == "<");
    CHECK(w[7] == "b");
    CHECK(w[8] == ">");
    CHECK(check(text, make(version)) == "");
  }
  TextSpans spans;
  const TokenizedText tokens = make(3).tokenize(text, spans);
  const std::vector<std::string> w = written(text, spans);
  const std::vector<std::string> f = flat(tokens);
  const auto at = [&](const std::string& token) { return w[std::find(f.begin(), f.end(), token) - f.begin()]; };
  CHECK(at("full") == "Ｆｕｌｌ");
  CHECK(at("fine") == "ﬁne");
  CHECK(at("été") == "e\u0301t\u00E9");
  CHECK(at("poirot\u2019s") == "Poirot\u2019s");
  CHECK(at("café") == "caf\u00E9");
  // "…" is three periods: the first shows it, the others have empty spans after it.
  const std::size_t dots = static_cast<std::size_t>(std::find(f.begin(), f.end(), "café") - f.begin()) + 1;
  CHECK(w[dots] == "\u2026");
  CHECK(w[dots + 1].empty());
  CHECK(w[dots + 2].empty());
}

TEST_CASE("tokenizer spans: caps say what was cut", "[tokenizer][spans]") {
  const std::string text = "One two three four. Five six. Seven eight.";
  TextSpans spans;
  const TokenizedText tokens = make(3, true, 2, 3).tokenize(text, spans);
  REQUIRE(tokens.size() == 2);
  CHECK(spans.cut == std::vector<bool>{true, false});
  CHECK(spans.truncated);
  CHECK(spans.sentences[0].back().end == std::string("One two three").size());
  make(3, true, 3, 0).tokenize(text, spans);
  CHECK_FALSE(spans.truncated);
  CHECK(spans.cut == std::vector<bool>{false, false, false});
  make(3, true, 0, 0).tokenize("   ", spans);
  CHECK(spans.sentences.empty());
}

TEST_CASE("tokenizer spans: cut_to_caps on the whole text marks what the tokenizer's caps mark", "[tokenizer][spans]") {
  const std::string text = "One two three four. Five six. Seven eight.";
  for (const Caps caps : {Caps{2, 3}, Caps{3, 0}, Caps{1, 2}, Caps{0, 1}, Caps{5, 5}}) {
    INFO(caps.sentences << " x " << caps.words);
    TextSpans capped_spans, whole_spans;
    const TokenizedText capped = make(3, true, caps.sentences, caps.words).tokenize(text, capped_spans);
    TokenizedText whole = make(3, true).tokenize(text, whole_spans);
    cut_to_caps(whole, whole_spans, caps);
    CHECK(whole == capped);
    CHECK(whole_spans.cut == capped_spans.cut);
    CHECK(whole_spans.truncated == capped_spans.truncated);
    REQUIRE(whole_spans.sentences.size() == capped_spans.sentences.size());
    for (std::size_t s = 0; s < capped_spans.sentences.size(); ++s) {
      REQUIRE(whole_spans.sentences[s].size() == capped_spans.sentences[s].size());
      for (std::size_t w = 0; w < capped_spans.sentences[s].size(); ++w) {
        CHECK(whole_spans.sentences[s][w].begin == capped_spans.sentences[s][w].begin);
        CHECK(whole_spans.sentences[s][w].end == capped_spans.sentences[s][w].end);
      }
    }
  }
}

TEST_CASE("tokenizer spans: increasing, inside the text, and each the text of its token", "[tokenizer][spans]") {
  // Text as people write it, odd Unicode included: every span is its token's text.
  const std::vector<std::string> clean = {
      "a", "E", "Word", "FILM", " ", "  ", ".", "!", "?", "'", "\"", "=", "<b>", "</i>", "&amp;", "\n", "\r\n", "\r",
      "\t", "Mr.", "U.S.", "e.g.", "3.5", "don't", "\u00E9", "e\u0301", "\uFF21", "\uFB01", "\u2026", "\uFF01",
      "\u00BD", "\u00B4", "\u212B", "\u0958", "\u2ADC", "\uAC00", "\u1100\u1161\u11AB", "\u65E5", "\u0E2A\u0E31",
      "\U0001F44D", "\U0001F44D\U0001F3FD", "\U0001F1EB\U0001F1F7", "\u2764\uFE0F", "\u03A3", "\u0644\u0651\u064E",
      "\U0001D400", "\u3000", "\u2019", "\u201D", "\u00AD", "\u2028", "\xC3", "\xFF", "\x80", "\x01", "\u33C2",
      "\u2474", "\u00C9COLE", "\u039F\u0394\u039F\u03A3", "\u0391\u0301"};
  // Stray combining marks and joiners too: a mark after a symbol may join the word after
  // it, so a span may then hold part of the next token's text; the spans still increase
  // and stay inside the text, and the tokens are tokenize(text)'s.
  std::vector<std::string> wild = clean;
  for (const char* odd : {"\u0301", "\u0323", "\u0338", "\u0651", "\u200D", "\uFE0F", "\U0001F3FD", "\u1161", "\u11AB",
                          "\u0E31", "\u0600", "\u0B3E", "\u0B47\u0B3E"})
    wild.push_back(odd);
  std::mt19937 rng(35);
  std::uniform_int_distribution<int> count(0, 60);
  std::uniform_int_distribution<int> cap(0, 4);
  for (const bool odd : {false, true}) {
    const std::vector<std::string>& pieces = odd ? wild : clean;
    std::uniform_int_distribution<std::size_t> pick(0, pieces.size() - 1);
    for (int trial = 0; trial < 3000; ++trial) {
      std::string s;
      for (int k = count(rng); k > 0; --k) s += pieces[pick(rng)];
      const int version = 1 + trial % 3;
      const bool lowercase = trial % 7 != 0;
      const int max_sentences = trial % 5 == 0 ? cap(rng) : 0;
      const int max_words = trial % 4 == 0 ? cap(rng) : 0;
      INFO("trial " << trial << " odd " << odd << " version " << version << " lowercase " << lowercase << " caps "
                    << max_sentences << "/" << max_words << " text \"" << s << "\"");
      REQUIRE(check(s, make(version, lowercase, max_sentences, max_words), !odd) == "");
    }
  }
}
