// The explanation as a user reads it: han predict --format html shows the text as written
// (case, punctuation, markup) with each word shaded by its weight, and --explain's json
// gives, beside the words the model read, where each came from in the text.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "support/cli_fixture.h"
#include "support/paths.h"
#include "support/run.h"

using namespace han::test;
using nlohmann::json;

namespace {

const std::string kReview = "Great FILM, \"really\" <b>good</b>!";

// What a browser shows of a page's body: its text without the tags (entities kept).
std::string shown_text(const std::string& html) {
  const std::size_t body = html.find("<body>");
  return std::regex_replace(html.substr(body == std::string::npos ? 0 : body), std::regex("<[^>]*>"), "");
}

}  // namespace

TEST_CASE("predict --format html shows the text as written, each word shaded by its weight", "[cli][predict][explain]") {
  const CliFixture& f = cli_fixture();
  const RunResult r = run(han_cmd("predict --model " + f.model + " --format html"), kReview + "\n");
  REQUIRE(r.exit_code == 0);
  // The sentence reads as written: capitals, quotes and markup characters, HTML-escaped.
  CHECK_THAT(shown_text(r.out), Catch::Contains("Great FILM, &quot;really&quot; &lt;b&gt;good&lt;/b&gt;!"));
  // Each word as written carries its weight.
  CHECK(std::regex_search(r.out, std::regex("<span class=\"w\" title=\"[0-9.]+\" style=\"background:rgba\\(30,90,220,[0-9.]+\\)[^\"]*\">FILM</span>")));
  CHECK(std::regex_search(r.out, std::regex("title=\"[0-9.]+\"[^>]*>&lt;</span><span class=\"w\" title=\"[0-9.]+\"[^>]*>b</span>")));
  CHECK(r.out.find(">film<") == std::string::npos);
  // The sentence weight as before.
  CHECK(std::regex_search(r.out, std::regex("<span class=\"sbar\" title=\"sentence weight 1.0000\"")));
}

TEST_CASE("predict --explain gives each word's span in the text and the word as written", "[cli][predict][explain]") {
  const CliFixture& f = cli_fixture();
  const RunResult r = run(han_cmd("predict --model " + f.model + " --format json --explain"), kReview + "\n");
  REQUIRE(r.exit_code == 0);
  const json row = json::parse(r.out);
  const json& sentences = row.at("attention").at("sentences");
  REQUIRE(sentences.size() == 1);
  const json& s = sentences[0];
  // The words as before: [word, weight] pairs, as the model read them.
  REQUIRE(s.at("words").size() >= 10);
  CHECK(s["words"][1][0] == "film");
  CHECK(s["words"][1][1].is_number());
  // Their spans, in bytes of the text, and the words as written.
  REQUIRE(s.at("spans").size() == s["words"].size());
  REQUIRE(s.at("written").size() == s["words"].size());
  std::vector<std::string> from_spans;
  for (const json& span : s["spans"]) {
    const auto begin = span[0].get<std::size_t>(), end = span[1].get<std::size_t>();
    REQUIRE(begin <= end);
    REQUIRE(end <= kReview.size());
    from_spans.push_back(kReview.substr(begin, end - begin));
  }
  CHECK(from_spans == s["written"].get<std::vector<std::string>>());
  CHECK(from_spans[0] == "Great");
  CHECK(from_spans[1] == "FILM");
  CHECK(from_spans[3] == "\"");
  CHECK(from_spans[6] == "<");
  CHECK(from_spans[7] == "b");
  CHECK(s["spans"][1] == json::array({6, 10}));
}

TEST_CASE("predict --format html says where a long text was cut", "[cli][predict][explain]") {
  const CliFixture& f = cli_fixture();
  std::string text;
  for (int i = 0; i < 600; ++i) text += "Words upon words ";  // one sentence longer than max_words
  text += "end.";
  for (int i = 0; i < 400; ++i) text += " Fine.";  // more sentences than max_sentences
  const RunResult r = run(han_cmd("predict --model " + f.model + " --format html"), text + "\n");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("[cut: the rest of the sentence was not read]"));
  CHECK_THAT(r.out, Catch::Contains("[cut: the text after this was not read"));
  CHECK_THAT(shown_text(r.out), Catch::Contains("Words upon words Words"));
  const RunResult js = run(han_cmd("predict --model " + f.model + " --format json --explain"), text + "\n");
  REQUIRE(js.exit_code == 0);
  const json a = json::parse(js.out).at("attention");
  CHECK(a.at("truncated") == true);
  CHECK(a.at("sentences")[0].at("cut") == true);
}
