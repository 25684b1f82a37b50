#include <sys/mman.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <chrono>
#include <random>
#include <string>
#include <vector>

#include "han/text/tokenizer.h"
#include "han/text/unicode.h"

using han::Sentence;
using han::TokenizedText;
using han::Tokenizer;
using han::TokenizerOptions;

namespace {

// Tokenizes under rules `version` (2: Unicode; 1: the rules before, kept for older models).
// Tests that hold under both declare `const Tok tok{GENERATE(1, 2, 3)};`, which hides the
// default `tok` below.
struct Tok {
  int version = han::kTokenizerVersion;
  TokenizedText operator()(const std::string& text, bool lowercase = true, int max_sentences = 0,
                           int max_words = 0) const {
    TokenizerOptions o;
    o.lowercase = lowercase;
    o.max_sentences = max_sentences;
    o.max_words = max_words;
    o.version = version;
    return Tokenizer(o).tokenize(text);
  }
};

const Tok tok{han::kTokenizerVersion};
const Tok tok_v1{1};

// One sentence of one-token-each words, for readable expectations.
TokenizedText one(std::vector<std::string> words) { return TokenizedText{std::move(words)}; }

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

// ---------------------------------------------------------------------------
// Rules common to both versions.

TEST_CASE("tokenizer: words, punctuation and sentence ends", "[tokenizer]") {
  const Tok tok{GENERATE(1, 2, 3)};
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
  const Tok tok{GENERATE(1, 2, 3)};
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
  const Tok tok{GENERATE(1, 2, 3)};
  CHECK(tok("").empty());
  CHECK(tok("   \n\t\r\n  ").empty());
  CHECK(tok("\xEF\xBB\xBF").empty());
  CHECK(tok("\xEF\xBB\xBFhi") == TokenizedText{{"hi"}});
}

TEST_CASE("tokenizer: apostrophes", "[tokenizer]") {
  const Tok tok{GENERATE(1, 2, 3)};
  CHECK(tok("Don't stop") == TokenizedText{{"don't", "stop"}});
  CHECK(tok("don\u2019t") == TokenizedText{{"don\u2019t"}});
  CHECK(tok("rock 'n' roll") == TokenizedText{{"rock", "'", "n", "'", "roll"}});
  CHECK(tok("the dogs' bone") == TokenizedText{{"the", "dogs", "'", "bone"}});
  CHECK(tok("'quoted'") == TokenizedText{{"'", "quoted", "'"}});
  CHECK(tok("a''b") == TokenizedText{{"a", "'", "'", "b"}});
  CHECK(tok("90's") == TokenizedText{{"90's"}});
  CHECK(tok("l'\u00E9cole") == TokenizedText{{"l'\u00E9cole"}});
}

TEST_CASE("tokenizer: lowercasing Latin, Greek and Cyrillic", "[tokenizer]") {
  const Tok tok{GENERATE(1, 2, 3)};
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
}

TEST_CASE("tokenizer: non-ASCII whitespace and punctuation", "[tokenizer]") {
  const Tok tok{GENERATE(1, 2, 3)};
  CHECK(tok("a\u00A0b\u2003c\u200Bd\u3000e\uFEFFf") ==
        TokenizedText{{"a", "b", "c", "d", "e", "f"}});
  CHECK(tok("\u00BFQu\u00E9? \u00A1S\u00ED!") ==
        TokenizedText{{"\u00BF", "qu\u00E9", "?"}, {"\u00A1", "s\u00ED", "!"}});
  CHECK(tok("\u201CHi\u201D \u2014 she said") ==
        TokenizedText{{"\u201C", "hi", "\u201D", "\u2014", "she", "said"}});
  CHECK(tok("\u00AB\u00A9\u00BB") == TokenizedText{{"\u00AB", "\u00A9", "\u00BB"}});
  CHECK(tok("cost 5\u20AC") == TokenizedText{{"cost", "5", "\u20AC"}});
}

TEST_CASE("tokenizer: invalid UTF-8 never crashes and keeps the valid parts", "[tokenizer]") {
  const Tok tok{GENERATE(1, 2, 3)};
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
  // A combining mark after an invalid byte does not reach back across it.
  CHECK(tok("e\xFF\xCC\x81x") == TokenizedText{{"e", "\u0301x"}});
  // Valid 4-byte code points are kept (U+10300 OLD ITALIC LETTER A).
  CHECK(tok("a\xF0\x90\x8C\x80" "b") == TokenizedText{{"a\xF0\x90\x8C\x80" "b"}});

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
  const std::string text = "\u00C9t\u00E9 \u65E5\u672C. \xF0\x9F\x98\x80 \u0416! e\u0301 \U0001F44D\U0001F3FD";
  for (std::size_t n = 0; n <= text.size(); ++n) check_well_formed(tok(text.substr(0, n)));
}

TEST_CASE("tokenizer: caps on sentences and words", "[tokenizer]") {
  const Tok tok{GENERATE(1, 2, 3)};
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

TEST_CASE("tokenizer: max_tokens ends the document after that many words, mid-sentence too", "[tokenizer]") {
  TokenizerOptions o;
  o.max_tokens = 5;
  const Tokenizer tok(o);
  CHECK(tok.tokenize("a b c. d e f. g h i.") == TokenizedText{{"a", "b", "c", "."}, {"d"}});
  CHECK(tok.tokenize("a b c d e f g h i") == TokenizedText{{"a", "b", "c", "d", "e"}});
  CHECK(tok.tokenize("a b. c d.") == TokenizedText{{"a", "b", "."}, {"c", "d"}});
  TextSpans spans;
  tok.tokenize("a b c. d e f. g h i.", spans);
  CHECK(spans.truncated);
  CHECK(spans.cut == std::vector<bool>{false, true});
  // With max_words, whichever leaves less room decides.
  o.max_words = 2;
  CHECK(Tokenizer(o).tokenize("a b c. d e f. g h i. j k") == TokenizedText{{"a", "b"}, {"d", "e"}, {"g"}});
}

TEST_CASE("tokenizer: caps equal truncating the uncapped result", "[tokenizer]") {
  // Random texts built from tricky fragments: the skipping scan that follows a full
  // sentence must find exactly the sentence ends that the full scan finds (including
  // those that only normalisation reveals: "！" and "…" hold terminators).
  const Tok tok{GENERATE(1, 2, 3)};
  const std::vector<std::string> pieces = {
      "word", " ", "  ", ".", "!", "?", "\n", "\r", "\r\n", "3.14", "don't", "'", "\u2019",
      "\u00A0", "\u2028", "\u0085", "\u3002", "\u00C9T\u00C9", "\xE2\x80", "\xC2", "\xFF",
      "\u2014", ",", "\t", "\u65E5", "\xF0\x9F\x98\x80", "\u200D", "\uFE0F", "\u0416",
      "\uFF01", "\u2026", "\uFF0E", "e\u0301", "\u0301", "\u03A3", "\U0001F44D\U0001F3FD",
      "\u0E2A\u0E27\u0E31", "\uFF21", "\u00BD", "\u00B4", "\u2024\u3000", "\u1100\u1161",
      "\u0644\u061F", "\u05E6\u05D4\u05F4\u05DC", "=\u0338", "\u00A8", "Mr.", " Mr. ", "U.S.", "etc.", " No. 5",
      "J.", "a.m.", "\"", "\u201D", ")", " The", " the", "..."};
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
  const Tok tok{GENERATE(1, 2, 3)};
  std::string big;
  big.reserve(5u << 20);
  while (big.size() < (5u << 20)) big += "Lorem ipsum dolor sit amet, consectetur \u00E9l\u00EEt ";
  const TokenizedText capped = tok(big, true, 30, 50);
  const TokenizedText full = tok(big, true, 0, 0);
  REQUIRE(capped.size() == 1);
  CHECK(capped[0].size() == 50);
  CHECK(capped[0][0] == "lorem");
  CHECK(capped[0][7] == "\u00E9l\u00EEt");
  CHECK(capped[0][9] == "ipsum");
  REQUIRE(full.size() == 1);
  CHECK(full[0].size() > 800000);

  // Many sentences: max_sentences stops the scan early. The text's first pages are readable
  // and the rest is mapped PROT_NONE, so a tokenizer that read past its third sentence
  // would fault here (a crash is this test's failure).
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t readable = 4 * page, guarded = 256 * page;
  void* mapped = ::mmap(nullptr, readable + guarded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(mapped != MAP_FAILED);
  char* text = static_cast<char*>(mapped);
  const std::string_view sentence = "Short sentence here. ";
  for (std::size_t i = 0; i < readable; ++i) text[i] = sentence[i % sentence.size()];
  REQUIRE(::mprotect(text + readable, guarded, PROT_NONE) == 0);
  TokenizerOptions capped_options;
  capped_options.max_sentences = 3;
  capped_options.version = tok.version;
  const TokenizedText first = Tokenizer(capped_options).tokenize(std::string_view(text, readable + guarded));
  ::munmap(mapped, readable + guarded);
  REQUIRE(first.size() == 3);
  CHECK(first[2] == Sentence{"short", "sentence", "here", "."});
}

// ---------------------------------------------------------------------------
// Version 2: Unicode.

TEST_CASE("tokenizer: text is normalised (NFKC) before it is split", "[tokenizer][unicode]") {
  // Composed and decomposed "é" are one word, in the middle of a word or at its end.
  CHECK(tok("caf\u00E9 cafe\u0301 r\u00E9sum\u00E9 re\u0301sume\u0301") ==
        one({"caf\u00E9", "caf\u00E9", "r\u00E9sum\u00E9", "r\u00E9sum\u00E9"}));
  // Vietnamese: two marks on one letter, in either order of input.
  CHECK(tok("TI\u1EBENG Tie\u0302\u0301ng") == one({"ti\u1EBFng", "ti\u1EBFng"}));
  // Fullwidth letters and digits fold to ASCII; so do ligatures and mathematical letters.
  CHECK(tok("\uFF28\uFF25\uFF2C\uFF2C\uFF2F \uFF11\uFF12\uFF13") == one({"hello", "123"}));
  CHECK(tok("\uFB01ne \U0001D400\U0001D401") == one({"fine", "ab"}));
  CHECK(tok("\u212B \u2126") == one({"\u00E5", "\u03C9"}));  // Angstrom and Ohm signs
  // An ellipsis is three full stops; a fullwidth "！" is "!" and ends the sentence. (Version 3
  // ends a sentence at an ellipsis only before a capital: see test_sentences.cpp.)
  CHECK(Tok{2}("Wait\u2026 what\uFF01 Yes") ==
        TokenizedText{{"wait", ".", ".", "."}, {"what", "!"}, {"yes"}});
  CHECK(tok("Wait\u2026 What\uFF01 Yes") ==
        TokenizedText{{"wait", ".", ".", "."}, {"what", "!"}, {"yes"}});
  CHECK(tok("Wait\u2026 what\uFF01 Yes") == TokenizedText{{"wait", ".", ".", ".", "what", "!"}, {"yes"}});
  // Kept as they are: spacing accents (no stray space) and vulgar fractions ("8½", not "81⁄2").
  CHECK(tok("don\u00B4t \u00A8Jaws\u00A8") == one({"don", "\u00B4", "t", "\u00A8", "jaws", "\u00A8"}));
  CHECK(tok("8\u00BD minutes") == one({"8\u00BD", "minutes"}));
  // A combining mark on a symbol composes where Unicode says so.
  CHECK(tok("a =\u0338 b") == one({"a", "\u2260", "b"}));
  // The old rules kept every one of these forms apart.
  CHECK(tok_v1("cafe\u0301 \uFF28\uFF29") == one({"cafe\u0301", "\uFF28\uFF29"}));
}

TEST_CASE("tokenizer: every punctuation mark is a token, Arabic's included", "[tokenizer][unicode]") {
  // U+061F ARABIC QUESTION MARK and U+060C ARABIC COMMA used to stay glued to words.
  CHECK(tok("\u0645\u0631\u062D\u0628\u0627 \u0628\u0627\u0644\u0639\u0627\u0644\u0645\u061F "
            "\u0646\u0639\u0645\u060C \u0634\u0643\u0631\u0627.") ==
        one({"\u0645\u0631\u062D\u0628\u0627", "\u0628\u0627\u0644\u0639\u0627\u0644\u0645", "\u061F",
             "\u0646\u0639\u0645", "\u060C", "\u0634\u0643\u0631\u0627", "."}));
  CHECK(tok_v1("\u0646\u0639\u0645\u060C") == one({"\u0646\u0639\u0645\u060C"}));
  // Other scripts' punctuation: Devanagari danda, Armenian full stop, Ethiopic comma.
  CHECK(tok("\u0928\u092E\u0938\u094D\u0924\u0947\u0964 \u0561\u0575\u0578\u0589 \u1230\u120B\u121D\u1363") ==
        one({"\u0928\u092E\u0938\u094D\u0924\u0947", "\u0964", "\u0561\u0575\u0578", "\u0589",
             "\u1230\u120B\u121D", "\u1363"}));
}

TEST_CASE("tokenizer: lowercasing follows Unicode, final sigma included", "[tokenizer][unicode]") {
  CHECK(tok("\u03A3\u038A\u03A3\u03A5\u03A6\u039F\u03A3") == one({"\u03C3\u03AF\u03C3\u03C5\u03C6\u03BF\u03C2"}));
  CHECK(tok_v1("\u03A3\u038A\u03A3\u03A5\u03A6\u039F\u03A3") == one({"\u03C3\u03AF\u03C3\u03C5\u03C6\u03BF\u03C3"}));
  // ς only at the end of a word, after a letter: ΟΔΥΣΣΕΑΣ, "ΣΑΣ." and a lone Σ.
  CHECK(tok("\u039F\u0394\u03A5\u03A3\u03A3\u0395\u0391\u03A3") ==
        one({"\u03BF\u03B4\u03C5\u03C3\u03C3\u03B5\u03B1\u03C2"}));
  CHECK(tok("\u03A3\u0391\u03A3. \u03A3") == TokenizedText{{"\u03C3\u03B1\u03C2", "."}, {"\u03C3"}});
  CHECK(tok("\u03A3\u038A\u03A3\u03A5\u03A6\u039F\u03A3", false) == one({"\u03A3\u038A\u03A3\u03A5\u03A6\u039F\u03A3"}));
  // Case beyond the old tables: Vietnamese, Armenian, Cherokee, Georgian Mtavruli, Deseret.
  CHECK(tok("\u1EA0\u1EB8 \u0540\u0531\u0545 \u13A0\u13A1 \u1C90\u1C91 \U00010400") ==
        one({"\u1EA1\u1EB9", "\u0570\u0561\u0575", "\uAB70\uAB71", "\u10D0\u10D1", "\U00010428"}));
}

TEST_CASE("tokenizer: emoji and symbols are one token per grapheme cluster", "[tokenizer][unicode]") {
  const std::string thumbs = "\U0001F44D\U0001F3FD";                                  // 👍🏽
  const std::string family = "\U0001F468\u200D\U0001F469\u200D\U0001F467";            // 👨‍👩‍👧
  CHECK(tok("Great " + thumbs + " film " + family + "!") == one({"great", thumbs, "film", family, "!"}));
  CHECK(tok(thumbs + family + thumbs) == one({thumbs, family, thumbs}));
  CHECK(tok("ok" + thumbs + "ok") == one({"ok", thumbs, "ok"}));
  // Flags pair their regional indicators; a variation selector is dropped (❤️ = ❤).
  CHECK(tok("\U0001F1EB\U0001F1F7\U0001F1E9\U0001F1EA") == one({"\U0001F1EB\U0001F1F7", "\U0001F1E9\U0001F1EA"}));
  CHECK(tok("I \u2764\uFE0F it") == tok("I \u2764 it"));
  // The old rules split the family and dropped the skin tone.
  CHECK(tok_v1(family) == one({"\U0001F468", "\U0001F469", "\U0001F467"}));
  CHECK(tok_v1(thumbs) == one({"\U0001F44D"}));
}

TEST_CASE("tokenizer: real text in many scripts", "[tokenizer][unicode]") {
  // Latin with accents.
  CHECK(tok("\u00C7a CO\u00DBTE 5\u20AC \u00E0 l'\u00C9T\u00C9.") ==
        one({"\u00E7a", "co\u00FBte", "5", "\u20AC", "\u00E0", "l'\u00E9t\u00E9", "."}));
  // Greek, Cyrillic.
  CHECK(tok("\u039A\u03B1\u03BB\u03B7\u03BC\u03AD\u03C1\u03B1 \u03BA\u03CC\u03C3\u03BC\u03B5!") ==
        one({"\u03BA\u03B1\u03BB\u03B7\u03BC\u03AD\u03C1\u03B1", "\u03BA\u03CC\u03C3\u03BC\u03B5", "!"}));
  CHECK(tok("\u041F\u0420\u0418\u0412\u0415\u0422, \u041C\u0418\u0420!") ==
        one({"\u043F\u0440\u0438\u0432\u0435\u0442", ",", "\u043C\u0438\u0440", "!"}));
  // Hebrew: points stay in the word, gershayim inside an acronym too (like an apostrophe).
  CHECK(tok("\u05E9\u05B8\u05C1\u05DC\u05D5\u05B9\u05DD \u05E6\u05D4\u05F4\u05DC") ==
        one({"\u05E9\u05B8\u05C1\u05DC\u05D5\u05B9\u05DD", "\u05E6\u05D4\u05F4\u05DC"}));
  // Devanagari: vowel signs and virama stay in the word.
  CHECK(tok("\u0928\u092E\u0938\u094D\u0924\u0947 \u0926\u0941\u0928\u093F\u092F\u093E") ==
        one({"\u0928\u092E\u0938\u094D\u0924\u0947", "\u0926\u0941\u0928\u093F\u092F\u093E"}));
  // Korean has spaces: words stay words; decomposed jamo compose into syllables.
  CHECK(tok("\uC548\uB155\uD558\uC138\uC694 \uC138\uACC4") == one({"\uC548\uB155\uD558\uC138\uC694", "\uC138\uACC4"}));
  CHECK(tok("\u1112\u1161\u11AB\u1100\u1173\u11AF") == one({"\uD55C\uAE00"}));
}

TEST_CASE("tokenizer: scripts without spaces split into single characters", "[tokenizer][unicode]") {
  // Chinese.
  CHECK(tok("\u6211\u7231\u5317\u4EAC\u3002") == one({"\u6211", "\u7231", "\u5317", "\u4EAC", "\u3002"}));
  // Japanese: kanji and kana; halfwidth katakana become fullwidth, with the voicing mark composed.
  CHECK(tok("\u6771\u4EAC\u306B\u884C\u304D\u307E\u3059") ==
        one({"\u6771", "\u4EAC", "\u306B", "\u884C", "\u304D", "\u307E", "\u3059"}));
  CHECK(tok("\uFF76\uFF9E\uFF72\uFF84\uFF9E") == one({"\u30AC", "\u30A4", "\u30C9"}));
  // Thai: a letter keeps its marks (one grapheme cluster).
  CHECK(tok("\u0E2A\u0E27\u0E31\u0E2A\u0E14\u0E35\u0E04\u0E23\u0E31\u0E1A") ==
        one({"\u0E2A", "\u0E27\u0E31", "\u0E2A", "\u0E14\u0E35", "\u0E04", "\u0E23\u0E31", "\u0E1A"}));
  // Latin words and digits next to them stay whole.
  CHECK(tok("iPhone\u624B\u673A 2024\u5E74") == one({"iphone", "\u624B", "\u673A", "2024", "\u5E74"}));
  // The old rules kept runs of them as one word.
  CHECK(tok_v1("\u6771\u4EAC\u3002\u5927\u962A") == one({"\u6771\u4EAC", "\u3002", "\u5927\u962A"}));
}

TEST_CASE("tokenizer: text and its normalised form tokenize alike, however long", "[tokenizer][unicode]") {
  // Decides which pieces need normalisation and where long non-ASCII runs may be cut:
  // neither may change the result.
  const std::vector<std::string> pieces = {
      "a", "E", " ", ".", "!", "'", "=", "\n", "\u00E9", "e\u0301", "\u0301", "\u0323",
      "\uFF21", "\uFB01", "\u2026", "\uFF01", "\u00BD", "\u00B4", "\u212B", "\u0958", "\u2ADC",
      "\u1100", "\u1161", "\u11AB", "\uAC00", "\u65E5", "\u0E2A", "\u0E31", "\U0001F44D",
      "\U0001F3FD", "\u200D", "\uFE0F", "\U0001F1EB", "\u03A3", "\u0B47", "\u0B3E", "\u0600",
      "\u0644", "\u0651", "\u064E", "\U0001D400", "\u3000", "\u0338"};
  std::mt19937 rng(11);
  std::uniform_int_distribution<std::size_t> pick(0, pieces.size() - 1);
  std::uniform_int_distribution<int> count(0, 400);
  for (int trial = 0; trial < 1500; ++trial) {
    std::string s;
    for (int k = count(rng); k > 0; --k) s += pieces[pick(rng)];
    han::unicode::CodePoints cps, scratch;
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    for (std::size_t i = 0; i < s.size();) {
      char32_t cp = 0;
      i += han::unicode::decode_utf8(p + i, s.size() - i, cp);
      cps.push_back(static_cast<std::int32_t>(cp));
    }
    han::unicode::normalize(cps, scratch);
    std::string normalised;
    for (const std::int32_t cp : cps) han::unicode::append_utf8(normalised, static_cast<char32_t>(cp));
    INFO("trial " << trial);
    REQUIRE(tok(s) == tok(normalised));
  }
  // Long runs without ASCII are cut into pieces, never inside a cluster.
  std::string han_text, emoji;
  for (int i = 0; i < 3000; ++i) han_text += "\u65E5e\u0301";
  for (int i = 0; i < 1000; ++i) emoji += "\U0001F468\u200D\U0001F469\u200D\U0001F467";
  const TokenizedText t = tok(han_text);
  REQUIRE(t.size() == 1);
  CHECK(t[0].size() == 6000);
  const TokenizedText e = tok(emoji);
  REQUIRE(e.size() == 1);
  CHECK(e[0].size() == 1000);
  CHECK(e[0][999] == "\U0001F468\u200D\U0001F469\u200D\U0001F467");
}
