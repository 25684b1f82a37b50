// The explanation as a user reads it: han predict --format html shows the text as written
// (case, punctuation, markup) with each word shaded by its weight, and --explain's json
// gives, beside the words the model read, where each came from in the text.
#include <catch2/catch.hpp>

#include <cmath>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "han/core/number_text.h"
#include "han/infer/model_file.h"
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
  // The fixture's member reads the whole text; one whose member reads the caps (as files
  // from before model.linear_text do) has its text cut by the tokenizer: both show the cuts.
  const TempDir dir;
  han::ModelFileContents caps = han::load_model_file(f.model);
  caps.header["config"]["model"]["linear_text"] = "caps";
  han::save_model_file(dir.file("caps.han"), caps.header, caps.tensors);
  for (const std::string& model : {f.model, dir.file("caps.han")}) {
    INFO(model);
    const RunResult r = run(han_cmd("predict --model " + model + " --format html"), text + "\n");
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("[cut: the HAN did not read the rest of the sentence]"));
    CHECK_THAT(r.out, Catch::Contains("[cut: the HAN did not read the text after this"));
    CHECK_THAT(shown_text(r.out), Catch::Contains("Words upon words Words"));
    const RunResult js = run(han_cmd("predict --model " + model + " --format json --explain"), text + "\n");
    REQUIRE(js.exit_code == 0);
    const json a = json::parse(js.out).at("attention");
    CHECK(a.at("truncated") == true);
    CHECK(a.at("sentences")[0].at("cut") == true);
  }
}

TEST_CASE("predict --explain gives the linear member's share, each part's answer and the member's words",
          "[cli][predict][explain][linear_member]") {
  const CliFixture& f = cli_fixture();  // trained with the default linear member
  const json info = json::parse(run(han_cmd("info --json --model " + f.model)).out);
  const double share = info.at("config").at("model").at("linear_weight").get<double>();
  const double temperature = info.value("head", json::object()).value("temperature", 1.0);
  REQUIRE(share > 0);
  const std::string text = "A dull, pointless film. The acting was awful and the plot made no sense.";
  const RunResult r = run(han_cmd("predict --model " + f.model + " --format json --explain"), text + "\n");
  REQUIRE(r.exit_code == 0);
  const json row = json::parse(r.out);
  const json& m = row.at("linear_member");
  CHECK(m.at("share").get<double>() == Approx(share));
  CHECK(m.at("label") == row.at("label"));
  // The answer is the parts' answers blended by the share, then tempered: binary softmax of
  // log(q) / T with q the blended probability of the label.
  const double h = m.at("han_probability").get<double>(), p = m.at("member_probability").get<double>();
  const double q = (1 - share) * h + share * p;
  const double tempered = std::pow(q, 1 / temperature) / (std::pow(q, 1 / temperature) + std::pow(1 - q, 1 / temperature));
  CHECK(row.at("probability").get<double>() == Approx(tempered).epsilon(1e-4));
  // The member's words and word pairs: of this text, the largest contribution first, with signs.
  const json& words = m.at("words");
  REQUIRE(words.size() >= 5);
  REQUIRE(words.size() <= 10);
  std::string read = " ";
  for (const json& s : row.at("attention").at("sentences")) {
    for (const json& w : s.at("words")) read += w[0].get<std::string>() + " ";
    read += "| ";  // no pair spans two sentences
  }
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string word = words[i][0];
    if (word.rfind("chars:", 0) == 0) {  // a character n-gram: `<` and `>` mark a word's ends
      std::string gram = word.substr(6);
      if (gram.front() == '<') gram = " " + gram.substr(1);
      if (gram.back() == '>') gram = gram.substr(0, gram.size() - 1) + " ";
      CHECK(read.find(gram) != std::string::npos);
      continue;
    }
    CHECK((word == "<unk>" || read.find(" " + word + " ") != std::string::npos));
    if (i > 0) CHECK(std::fabs(words[i - 1][1].get<double>()) >= std::fabs(words[i][1].get<double>()));
  }
  // On a review this negative, the answer is "neg" and the member's strongest word weighs for it.
  REQUIRE(row["label"] == "neg");
  CHECK(words[0][1].get<double>() > 0);
}

TEST_CASE("predict --format html shows the linear member's part beside the attention", "[cli][predict][explain][linear_member]") {
  const CliFixture& f = cli_fixture();
  const json info = json::parse(run(han_cmd("info --json --model " + f.model)).out);
  const double share = info.at("config").at("model").at("linear_weight").get<double>();
  const std::string member = han::format_fixed(share, 2), han_part = han::format_fixed(1 - share, 2);
  const RunResult r = run(han_cmd("predict --model " + f.model + " --format html"), kReview + "\n");
  REQUIRE(r.exit_code == 0);
  const std::string shown = shown_text(r.out);
  // The legend says what the shading carries, and the member's box gives its share and words.
  CHECK_THAT(shown, Catch::Contains("The model blends the HAN (weight " + han_part + ") with a TF-IDF linear member (weight " +
                                    member + ")"));
  CHECK_THAT(shown, Catch::Contains("The shading above is the HAN's part of the answer (weight " + han_part + ")"));
  CHECK_THAT(shown, Catch::Contains("The linear member's part (weight " + member + ") answers"));
  CHECK(std::regex_search(shown, std::regex("Its words (for [a-z]+|against): [^ ]+ [+-][0-9.]+")));
}
