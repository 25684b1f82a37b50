// Caps from the data: what caps keep, and the smallest caps "auto" picks to keep ~95 %
// of the training tokens at each level.
#include <catch2/catch.hpp>
#include <regex>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "han/core/config.h"
#include "han/text/caps.h"
#include "han/text/vocab.h"
#include "support/cli_fixture.h"
#include "support/paths.h"
#include "support/run.h"

using namespace han;

TEST_CASE("caps: kept fraction counts the tokens inside S sentences x W words", "[caps]") {
  const DocumentShapes shapes = {{10, 2}, {1, 1, 1, 1}, {30}};  // 46 tokens
  CHECK(kept_fraction(shapes, 100, 100) == 1.0);
  CHECK(kept_fraction(shapes, 1, 100) == Approx((10 + 1 + 30) / 46.0));
  CHECK(kept_fraction(shapes, 100, 5) == Approx((5 + 2 + 4 + 5) / 46.0));
  CHECK(kept_fraction({}, 3, 3) == 1.0);
}

TEST_CASE("caps: auto picks the smallest caps keeping sqrt(0.95) per level, fixed caps stay", "[caps]") {
  // 100 documents: 95 of 10 sentences x 8 words, 5 of 60 sentences x 100 words.
  DocumentShapes shapes;
  for (int d = 0; d < 95; ++d) shapes.emplace_back(10, 8);
  for (int d = 0; d < 5; ++d) shapes.emplace_back(60, 100);
  TokenizerConfig cfg;
  cfg.max_sentences = kAutoCap;
  cfg.max_words = kAutoCap;
  const CapChoice c = choose_caps(shapes, cfg);
  const double per_level = std::sqrt(kAutoCapKeep);
  // Smallest: one word or one sentence less falls short of the target.
  CHECK(kept_fraction(shapes, 0, c.max_words) >= per_level);
  CHECK(kept_fraction(shapes, 0, c.max_words - 1) < per_level);
  const double words_kept = kept_fraction(shapes, 0, c.max_words);
  CHECK(kept_fraction(shapes, c.max_sentences, c.max_words) >= per_level * words_kept - 1e-12);
  CHECK(kept_fraction(shapes, c.max_sentences - 1, c.max_words) < per_level * words_kept);
  CHECK(c.kept_fraction == Approx(kept_fraction(shapes, c.max_sentences, c.max_words)));
  CHECK(c.kept_fraction >= kAutoCapKeep - 1e-9);
  CHECK(c.max_words > 8);  // the long documents hold most of the words: the cap follows them
  cfg.max_sentences = 7;
  const CapChoice fixed_s = choose_caps(shapes, cfg);
  CHECK(fixed_s.max_sentences == 7);
  CHECK(fixed_s.max_words == c.max_words);
}

TEST_CASE("caps: auto stops at its limits on enormous documents", "[caps]") {
  const DocumentShapes shapes = {std::vector<std::int32_t>(5000, 1000)};
  TokenizerConfig cfg;
  cfg.max_sentences = kAutoCap;
  cfg.max_words = kAutoCap;
  const CapChoice c = choose_caps(shapes, cfg);
  CHECK(c.max_words == kAutoMaxWords);
  CHECK(c.max_sentences == kAutoMaxSentences);
}

TEST_CASE("caps: \"auto\" reads and writes in config JSON, other text is refused", "[caps][config]") {
  const Config c = config_from_json(nlohmann::json::parse(R"({"tokenizer": {"max_sentences": "auto", "max_words": 40}})"), "t.json");
  CHECK(c.tokenizer.max_sentences == kAutoCap);
  CHECK(c.tokenizer.max_words == 40);
  CHECK(config_to_json(c)["tokenizer"]["max_sentences"] == "auto");
  CHECK(config_to_json(c)["tokenizer"]["max_words"] == 40);
  CHECK_THROWS_WITH(config_from_json(nlohmann::json::parse(R"({"tokenizer": {"max_words": "automatic"}})"), "t.json"),
                    Catch::Contains("tokenizer.max_words") && Catch::Contains("an integer or \"auto\""));
  CHECK_THROWS_WITH(config_from_json(nlohmann::json::parse(R"({"tokenizer": {"max_words": 0}})"), "t.json"),
                    Catch::Contains("tokenizer.max_words"));
}

TEST_CASE("train with auto caps and min_count: the model holds the chosen numbers, config.json keeps auto", "[cli][caps]") {
  const han::test::CliFixture& f = han::test::cli_fixture();
  han::test::TempDir tmp;
  const std::string out = (tmp.path / "run").string();
  const han::test::RunResult r = han::test::run(han::test::han_cmd(
      "train --config " + han::test::source_path("configs/quickstart.json") + " --output " + out + " --set data.train=" +
      f.data + " --set tokenizer.max_sentences=auto --set tokenizer.max_words=auto --set tokenizer.min_count=auto"
      " --set trainer.epochs=1"
      " --set model.embedding_dim=8 --set model.word_hidden=4 --set model.sentence_hidden=4 --set model.attention_dim=8"));
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("(auto) keep 9") != std::string::npos);
  CHECK(r.err.find("min_count: ") != std::string::npos);
  CHECK(r.err.find(" (auto): the words seen at least ") != std::string::npos);
  const auto info = nlohmann::json::parse(han::test::run(han::test::han_cmd("info --json --model " + out + "/model.han")).out);
  const auto& caps = info["config"]["tokenizer"];
  REQUIRE(caps["max_sentences"].is_number_integer());
  REQUIRE(caps["max_words"].is_number_integer());
  REQUIRE(caps["min_count"].is_number_integer());
  // The numbers the run chose and logged ("han: caps: 34 sentences x 56 words (auto) ...",
  // "min_count: 6 (auto): ..."), not merely numbers.
  std::smatch chosen;
  REQUIRE(std::regex_search(r.err, chosen, std::regex("han: caps: ([0-9]+) sentences x ([0-9]+) words \\(auto\\)")));
  CHECK(caps["max_sentences"].get<int>() == std::stoi(chosen[1]));
  CHECK(caps["max_words"].get<int>() == std::stoi(chosen[2]));
  REQUIRE(std::regex_search(r.err, chosen, std::regex("min_count: ([0-9]+) \\(auto\\)")));
  CHECK(caps["min_count"].get<int>() == std::stoi(chosen[1]));
  CHECK(caps["min_count"].get<int>() >= kAutoMinCountLeast);
  CHECK(caps["min_count"].get<int>() <= kAutoMinCountMost);
  const auto stored = nlohmann::json::parse(han::test::slurp(out + "/config.json"));
  CHECK(stored["tokenizer"]["max_sentences"] == "auto");
  CHECK(stored["tokenizer"]["min_count"] == "auto");
  const han::test::RunResult p = han::test::run(han::test::han_cmd("predict --model " + out + "/model.han"), "a fine film.\n");
  CHECK(p.exit_code == 0);
  CHECK(han::test::lines_of(p.out).size() == 1);
}

TEST_CASE("train on short texts with min_count auto: it goes down to 2, and the model's vocabulary follows", "[cli][caps]") {
  // 20 one-line documents: "common" in each, ten words seen 3 times, ten seen twice and five
  // seen once. The words seen at least 2 times hold 70 of the 75 tokens (93 %), under 95 %,
  // so auto stops at its floor of 2: PAD, UNK, common and the twenty words seen 2-3 times.
  std::vector<std::string> tokens;
  for (int i = 0; i < 10; ++i)
    for (int k = 0; k < 3; ++k) tokens.push_back("thrice" + std::to_string(i));
  for (int i = 0; i < 10; ++i)
    for (int k = 0; k < 2; ++k) tokens.push_back("twice" + std::to_string(i));
  for (int i = 0; i < 5; ++i) tokens.push_back("once" + std::to_string(i));
  std::vector<std::string> docs(20, "common");
  for (std::size_t j = 0; j < tokens.size(); ++j) docs[j % docs.size()] += " " + tokens[j];
  han::test::TempDir tmp;
  const std::string train = (tmp.path / "short.jsonl").string();
  {
    std::ofstream out(train);
    for (std::size_t d = 0; d < docs.size(); ++d)
      out << nlohmann::json{{"label", d % 2 ? "pos" : "neg"}, {"text", docs[d]}}.dump() << "\n";
  }
  const std::string out = (tmp.path / "run").string();
  const han::test::RunResult r = han::test::run(han::test::han_cmd(
      "train --config " + han::test::source_path("configs/quickstart.json") + " --output " + out + " --set data.train=" +
      train + " --set data.dev= --set data.test= --set tokenizer.min_count=auto --set trainer.epochs=1"
      " --set model.embedding_dim=8 --set model.word_hidden=4 --set model.sentence_hidden=4 --set model.attention_dim=8"));
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("min_count: 2 (auto): the words seen at least 2 times hold 93.3% of the tokens of train") !=
        std::string::npos);
  const auto info = nlohmann::json::parse(han::test::run(han::test::han_cmd("info --json --model " + out + "/model.han")).out);
  CHECK(info["config"]["tokenizer"]["min_count"] == 2);
  CHECK(info["vocabulary_size"] == 2 + 1 + 20);
}
