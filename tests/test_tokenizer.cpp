#include <catch2/catch.hpp>

#include <chrono>
#include <random>
#include <string>
#include <vector>

#include "han/text/tokenizer.h"

using han::Sentence;
using han::TokenizedText;
using han::Tokenizer;
using han::TokenizerOptions;

namespace {

TokenizedText tok(const std::string& text, bool lowercase = true, int max_sentences = 0,
                  int max_words = 0) {
  TokenizerOptions o;
  o.lowercase = lowercase;
  o.max_sentences = max_sentences;
  o.max_words = max_words;
  return Tokenizer(o).tokenize(text);
}

// Every token must be valid UTF-8 and non-empty.
bool valid_utf8(const std::string& s) {
  std::size_t i = 0;
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  while (i < s.size()) {
    const unsigned char b = p[i];
    std::size_t len = 0;
    char32_t cp = 0;
    if (b < 0x80) {
      len = 1;
      cp = b;
    } else if (b >= 0xC2 && b < 0xE0) {
      len = 2;
      cp = b & 0x1F;
    } else if (b >= 0xE0 && b < 0xF0) {
      len = 3;
      cp = b & 0x0F;
    } else if (b >= 0xF0 && b < 0xF5) {
      len = 4;
      cp = b & 0x07;
    } else {
      return false;
    }
    if (i + len > s.size()) return false;
    for (std::size_t k = 1; k < len; ++k) {
      if ((p[i + k] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (p[i + k] & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF))) return false;
    if (cp >= 0xD800 && cp <= 0xDFFF) return false;
    i += len;
  }
  return true;
}

void check_well_formed(const TokenizedText& t) {
  for (const auto& s : t) {
    REQUIRE_FALSE(s.empty());
    for (const auto& w : s) {
      REQUIRE_FALSE(w.empty());
      REQUIRE(valid_utf8(w));
    }
  }
}

}  // namespace

TEST_CASE("tokenizer: words, punctuation and sentence ends", "[tokenizer]") {
  CHECK(tok("Hello, world! How are you?") ==
        TokenizedText{{"hello", ",", "world", "!"}, {"how", "are", "you", "?"}});
  CHECK(tok("It costs 3.14 dollars. Cheap.") ==
        TokenizedText{{"it", "costs", "3", ".", "14", "dollars", "."}, {"cheap", "."}});
  // A terminator not followed by whitespace does not end the sentence.
  CHECK(tok("see example.com now") ==
        TokenizedText{{"see", "example", ".", "com", "now"}});
  CHECK(tok("Wait...what? Yes") ==
        TokenizedText{{"wait", ".", ".", ".", "what", "?"}, {"yes"}});
  CHECK(tok("(a+b)=c; x_y") ==
        TokenizedText{{"(", "a", "+", "b", ")", "=", "c", ";", "x", "_", "y"}});
}

TEST_CASE("tokenizer: line breaks end sentences", "[tokenizer]") {
  CHECK(tok("one two\nthree") == TokenizedText{{"one", "two"}, {"three"}});
  CHECK(tok("Stop!\nGo") == TokenizedText{{"stop", "!"}, {"go"}});
  CHECK(tok("a\r\nb\r\n") == TokenizedText{{"a"}, {"b"}});
  CHECK(tok("a\rb\rc") == TokenizedText{{"a"}, {"b"}, {"c"}});
  // Empty sentences (blank lines, runs of terminators' whitespace) are dropped.
  CHECK(tok("a\n\n\r\n\r\r  \n b") == TokenizedText{{"a"}, {"b"}});
  // Unicode line separator and NEL.
  CHECK(tok("a\u2028b\u0085c") == TokenizedText{{"a"}, {"b"}, {"c"}});
  // A full stop followed by a non-ASCII space ends the sentence.
  CHECK(tok("end.\u00A0Next") == TokenizedText{{"end", "."}, {"next"}});
  CHECK(tok("end.\u3000Next") == TokenizedText{{"end", "."}, {"next"}});
}

TEST_CASE("tokenizer: empty and blank text", "[tokenizer]") {
  CHECK(tok("").empty());
  CHECK(tok("   \n\t\r\n  ").empty());
  CHECK(tok("\xEF\xBB\xBF").empty());
  CHECK(tok("\xEF\xBB\xBFhi") == TokenizedText{{"hi"}});
}

TEST_CASE("tokenizer: apostrophes", "[tokenizer]") {
  CHECK(tok("Don't stop") == TokenizedText{{"don't", "stop"}});
  CHECK(tok("don\u2019t") == TokenizedText{{"don\u2019t"}});
  CHECK(tok("rock 'n' roll") == TokenizedText{{"rock", "'", "n", "'", "roll"}});
  CHECK(tok("the dogs' bone") == TokenizedText{{"the", "dogs", "'", "bone"}});
  CHECK(tok("'quoted'") == TokenizedText{{"'", "quoted", "'"}});
  CHECK(tok("a''b") == TokenizedText{{"a", "'", "'", "b"}});
  CHECK(tok("90's") == TokenizedText{{"90's"}});
  CHECK(tok("l'\u00E9cole") == TokenizedText{{"l'\u00E9cole"}});
}

TEST_CASE("tokenizer: lowercasing", "[tokenizer]") {
  CHECK(tok("\u00C9COLE") == TokenizedText{{"\u00E9cole"}});
  CHECK(tok("\u00C9COLE", false) == TokenizedText{{"\u00C9COLE"}});
  CHECK(tok("MiXeD CaSe", false) == TokenizedText{{"MiXeD", "CaSe"}});
  CHECK(tok("\u00DCBER \u00C5NGSTR\u00D6M") == TokenizedText{{"\u00FCber", "\u00E5ngstr\u00F6m"}});
  // Latin Extended-A: Ł Ź Ž Ő Ÿ
  CHECK(tok("\u0141\u00D3D\u0179 \u017D\u0150\u0178") ==
        TokenizedText{{"\u0142\u00F3d\u017A", "\u017E\u0151\u00FF"}});
  // Greek and Cyrillic.
  CHECK(tok("\u0391\u0398\u0397\u039D\u0391 \u0386\u03A9") ==
        TokenizedText{{"\u03B1\u03B8\u03B7\u03BD\u03B1", "\u03AC\u03C9"}});
  CHECK(tok("\u041C\u041E\u0421\u041A\u0412\u0410 \u0401\u0416 \u0406") ==
        TokenizedText{{"\u043C\u043E\u0441\u043A\u0432\u0430", "\u0451\u0436", "\u0456"}});
  // × is a symbol, not a letter, and is not lowercased into ÷.
  CHECK(tok("2\u00D73") == TokenizedText{{"2", "\u00D7", "3"}});
  // Other scripts are kept intact.
  CHECK(tok("\u65E5\u672C\u8A9E \u05E9\u05DC\u05D5\u05DD") ==
        TokenizedText{{"\u65E5\u672C\u8A9E", "\u05E9\u05DC\u05D5\u05DD"}});
}

TEST_CASE("tokenizer: non-ASCII whitespace and punctuation", "[tokenizer]") {
  CHECK(tok("a\u00A0b\u2003c\u200Bd\u3000e\uFEFFf") ==
        TokenizedText{{"a", "b", "c", "d", "e", "f"}});
  CHECK(tok("\u00BFQu\u00E9? \u00A1S\u00ED!") ==
        TokenizedText{{"\u00BF", "qu\u00E9", "?"}, {"\u00A1", "s\u00ED", "!"}});
  CHECK(tok("\u201CHi\u201D \u2014 she said\u2026") ==
        TokenizedText{{"\u201C", "hi", "\u201D", "\u2014", "she", "said", "\u2026"}});
  CHECK(tok("\u6771\u4EAC\u3002\u5927\u962A") ==
        TokenizedText{{"\u6771\u4EAC", "\u3002", "\u5927\u962A"}});
  // Letter-like Latin-1 signs stay in words.
  CHECK(tok("1\u00AA 5\u00B5m") == TokenizedText{{"1\u00AA", "5\u00B5m"}});
  CHECK(tok("\u00AB\u00A9\u00BB") == TokenizedText{{"\u00AB", "\u00A9", "\u00BB"}});
  CHECK(tok("cost 5\u20AC") == TokenizedText{{"cost", "5", "\u20AC"}});
}

TEST_CASE("tokenizer: invalid UTF-8 never crashes and keeps the valid parts", "[tokenizer]") {
  // Stray continuation byte and invalid lead bytes act as separators.
  CHECK(tok("ab\x80" "cd") == TokenizedText{{"ab", "cd"}});
  CHECK(tok("ab\xFF\xFE" "cd") == TokenizedText{{"ab", "cd"}});
  // Truncated sequences: in the middle, then at the very end.
  CHECK(tok("caf\xC3 ok") == TokenizedText{{"caf", "ok"}});
  CHECK(tok("x\xE2\x82y") == TokenizedText{{"x", "y"}});
  CHECK(tok("end\xF0\x9F\x98") == TokenizedText{{"end"}});
  CHECK(tok("\xC3") == TokenizedText{});
  // Overlong encodings of '/' and of 'A'; overlong 3- and 4-byte forms.
  CHECK(tok("a\xC0\xAF" "b") == TokenizedText{{"a", "b"}});
  CHECK(tok("a\xC1\x81" "b") == TokenizedText{{"a", "b"}});
  CHECK(tok("a\xE0\x80\xAF" "b") == TokenizedText{{"a", "b"}});
  CHECK(tok("a\xF0\x80\x80\xAF" "b") == TokenizedText{{"a", "b"}});
  // Surrogates (CESU-style) and code points above U+10FFFF.
  CHECK(tok("a\xED\xA0\x80" "b") == TokenizedText{{"a", "b"}});
  CHECK(tok("a\xF4\x90\x80\x80" "b") == TokenizedText{{"a", "b"}});
  // The first byte of a bad sequence is skipped alone: a valid sequence right after stays.
  CHECK(tok("\xE2\xC3\xA9t\xC3\xA9") == TokenizedText{{"\u00E9t\u00E9"}});
  // Valid 4-byte code points are kept.
  CHECK(tok("a\xF0\x9D\x90\x80" "b") == TokenizedText{{"a\xF0\x9D\x90\x80" "b"}});

  std::mt19937 rng(12345);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<int> length(0, 400);
  for (int trial = 0; trial < 2000; ++trial) {
    std::string s(static_cast<std::size_t>(length(rng)), '\0');
    for (char& c : s) c = static_cast<char>(byte(rng));
    const TokenizedText t = tok(s, trial % 2 == 0, trial % 3, trial % 5);
    check_well_formed(t);
  }
  // Every prefix of a multi-byte text (cut in the middle of sequences).
  const std::string text = "\u00C9t\u00E9 \u65E5\u672C. \xF0\x9F\x98\x80 \u0416!";
  for (std::size_t n = 0; n <= text.size(); ++n) check_well_formed(tok(text.substr(0, n)));
}

TEST_CASE("tokenizer: caps on sentences and words", "[tokenizer]") {
  CHECK(tok("a b c. d e f. g h i.", true, 2, 0) ==
        TokenizedText{{"a", "b", "c", "."}, {"d", "e", "f", "."}});
  CHECK(tok("a b c. d e f. g h i.", true, 0, 2) ==
        TokenizedText{{"a", "b"}, {"d", "e"}, {"g", "h"}});
  CHECK(tok("a b c. d e f. g h i.", true, 2, 1) == TokenizedText{{"a"}, {"d"}});
  // The end of a capped sentence is still found (line breaks, Unicode separators).
  CHECK(tok("a b c d\ne f g\r\nh\ri\u2029j", true, 0, 1) ==
        TokenizedText{{"a"}, {"e"}, {"h"}, {"i"}, {"j"}});
  // "3.14" inside the skipped part does not end the sentence.
  CHECK(tok("one two 3.14 three! four", true, 0, 1) == TokenizedText{{"one"}, {"four"}});
  // Empty sentences do not count towards max_sentences.
  CHECK(tok("\n\n\na\n\n\nb\n\nc", true, 2, 0) == TokenizedText{{"a"}, {"b"}});
}

TEST_CASE("tokenizer: caps equal truncating the uncapped result", "[tokenizer]") {
  // Random texts built from tricky fragments: the skipping scan that follows a full
  // sentence must find exactly the sentence ends that the full scan finds.
  const std::vector<std::string> pieces = {
      "word", " ", "  ", ".", "!", "?", "\n", "\r", "\r\n", "3.14", "don't", "'", "\u2019",
      "\u00A0", "\u2028", "\u0085", "\u3002", "\u00C9T\u00C9", "\xE2\x80", "\xC2", "\xFF",
      "\u2014", ",", "\t", "\u65E5", "\xF0\x9F\x98\x80", "\u200D", "\uFE0F", "\u0416"};
  std::mt19937 rng(7);
  std::uniform_int_distribution<std::size_t> pick(0, pieces.size() - 1);
  std::uniform_int_distribution<int> count(0, 120);
  std::uniform_int_distribution<int> cap(0, 4);
  for (int trial = 0; trial < 3000; ++trial) {
    std::string s;
    for (int k = count(rng); k > 0; --k) s += pieces[pick(rng)];
    const int max_s = cap(rng);
    const int max_w = cap(rng);
    TokenizedText expected = tok(s);
    check_well_formed(expected);
    if (max_s > 0 && expected.size() > static_cast<std::size_t>(max_s)) {
      expected.resize(static_cast<std::size_t>(max_s));
    }
    for (auto& sentence : expected) {
      if (max_w > 0 && sentence.size() > static_cast<std::size_t>(max_w)) {
        sentence.resize(static_cast<std::size_t>(max_w));
      }
    }
    INFO("trial " << trial << " max_sentences " << max_s << " max_words " << max_w);
    REQUIRE(tok(s, true, max_s, max_w) == expected);
  }
}

TEST_CASE("tokenizer: a very long line is fast and capped", "[tokenizer]") {
  std::string big;
  big.reserve(5u << 20);
  while (big.size() < (5u << 20)) big += "Lorem ipsum dolor sit amet, consectetur \u00E9l\u00EEt ";
  const auto t0 = std::chrono::steady_clock::now();
  const TokenizedText capped = tok(big, true, 30, 50);
  const TokenizedText full = tok(big, true, 0, 0);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  REQUIRE(capped.size() == 1);
  CHECK(capped[0].size() == 50);
  CHECK(capped[0][0] == "lorem");
  CHECK(capped[0][7] == "\u00E9l\u00EEt");
  CHECK(capped[0][9] == "ipsum");
  REQUIRE(full.size() == 1);
  CHECK(full[0].size() > 800000);
  // Both passes together, 10 MB: well above 30 MB/s even unoptimised-ish.
  CHECK(seconds < 2.0);

  // Many sentences: max_sentences stops the scan early.
  std::string many;
  while (many.size() < (5u << 20)) many += "Short sentence here. ";
  const auto t1 = std::chrono::steady_clock::now();
  const TokenizedText few = tok(many, true, 3, 0);
  const double capped_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  CHECK(few.size() == 3);
  CHECK(capped_seconds < 0.05);  // a full scan of 5 MB of short sentences takes far longer
}
