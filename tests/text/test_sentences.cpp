// Where sentences end (tokenizer.version 3): the table of cases in sentence_cases.tsv
// (abbreviations, initials, decimals, ellipses, closing quotes, and periods that do end a
// sentence); older versions keep their rules, so a stored model splits as it was trained.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>
#include <vector>

#include "han/text/tokenizer.h"
#include "support/paths.h"

using han::TokenizedText;

namespace {

TokenizedText tokenize(const std::string& text, int version, int max_sentences = 0, int max_words = 0) {
  han::TokenizerOptions o;
  o.version = version;
  o.max_sentences = max_sentences;
  o.max_words = max_words;
  return han::Tokenizer(o).tokenize(text);
}

struct SentenceCase {
  std::string text;
  std::vector<std::string> sentences;  // as written
};

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out(1);
  for (char c : line) {
    if (c == '\t') out.emplace_back();
    else out.back() += c;
  }
  return out;
}

std::string unescape_breaks(std::string s) {
  for (std::size_t at; (at = s.find("\\n")) != std::string::npos;) s.replace(at, 2, "\n");
  return s;
}

std::vector<SentenceCase> sentence_cases() {
  std::ifstream in(han::test::source_path("tests/text/sentence_cases.tsv"));
  std::vector<SentenceCase> out;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> fields = split_tabs(line);
    SentenceCase c;
    c.text = unescape_breaks(fields[0]);
    c.sentences.assign(fields.begin() + 1, fields.end());
    out.push_back(c);
  }
  return out;
}

}  // namespace

TEST_CASE("sentences: the table of cases, under tokenizer.version 3", "[tokenizer][sentences]") {
  const std::vector<SentenceCase> cases = sentence_cases();
  REQUIRE(cases.size() >= 30);
  int breaks_kept = 0;  // cases where a period does end a sentence
  for (const SentenceCase& c : cases) {
    INFO("text: " << c.text);
    TokenizedText expected;
    for (const std::string& sentence : c.sentences) {
      const TokenizedText one = tokenize(sentence, 3);
      REQUIRE(one.size() == 1);  // each expected sentence is one on its own
      expected.push_back(one[0]);
    }
    CHECK(tokenize(c.text, 3) == expected);
    // The same ends with caps: a full sentence is skipped, never split differently.
    TokenizedText capped = expected;
    for (auto& s : capped) s.resize(std::min<std::size_t>(s.size(), 2));
    CHECK(tokenize(c.text, 3, 0, 2) == capped);
    if (c.sentences.size() > 1) ++breaks_kept;
  }
  CHECK(breaks_kept >= 10);
}

TEST_CASE("sentences: the quick start's Mr. Poirot is one sentence", "[tokenizer][sentences]") {
  CHECK(tokenize("It was solved by Mr. Poirot. He is Belgian.", 3) ==
        TokenizedText{{"it", "was", "solved", "by", "mr", ".", "poirot", "."}, {"he", "is", "belgian", "."}});
}

TEST_CASE("sentences: older tokenizer versions still end a sentence at every period", "[tokenizer][sentences]") {
  for (int version : {1, 2}) {
    INFO("version " << version);
    CHECK(tokenize("It was solved by Mr. Poirot.", version) ==
          TokenizedText{{"it", "was", "solved", "by", "mr", "."}, {"poirot", "."}});
    CHECK(tokenize("Bring fruit, e.g. apples.", version).size() == 2);
    CHECK(tokenize("He said \"Stop.\" Then he left.", version).size() == 1);  // closing quotes hid the end
  }
  CHECK(tokenize("It was solved by Mr. Poirot.", han::kTokenizerVersion).size() == 1);
}
