// han embed and model.embeddings = "pretrain", run through the binary as a user runs them.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "support/paths.h"
#include "support/run.h"

using namespace han::test;
using nlohmann::json;

namespace {

// Three short "documents" per topic, repeated: enough for min_count 5.
std::string plain_text(int repeats) {
  std::string out;
  for (int i = 0; i < repeats; ++i)
    out += "The cat sat on the mat.\nA dog ran in the park!\nThe cat and the dog play.\n";
  return out;
}

const std::string kSmall = " --set model.embedding_dim=8 --set trainer.threads=1 --set embed.epochs=2";

void check_one_line_error(const RunResult& r, int code, const std::string& must_mention) {
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == code);
  CHECK(r.out.empty());
  const auto errs = lines_of(r.err);
  REQUIRE(errs.size() == 1);
  CHECK(errs[0].rfind("han: error: ", 0) == 0);
  CHECK(errs[0].find(must_mention) != std::string::npos);
}

}  // namespace

TEST_CASE("han embed writes word2vec text vectors and a JSON summary, and one thread repeats itself", "[embed_cli]") {
  TempDir tmp;
  const std::string a = tmp.write("a.txt", plain_text(20)), b = tmp.write("b.txt", plain_text(5));
  const std::string out = tmp.file("vectors.txt");
  const RunResult r = run(han_cmd("embed --input " + a + " " + b + " --output " + out + kSmall));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const json summary = json::parse(r.out);
  // 14 words (the cat sat on mat . a dog ran in park ! and play), 7 per line, 3 lines x 25.
  CHECK(summary["words"] == 14);
  CHECK(summary["dim"] == 8);
  CHECK(summary["documents"] == 75);
  CHECK(summary["corpus_words"] == 75 * 7);
  CHECK(summary["words_per_second"].get<double>() > 0);
  const auto lines = lines_of(slurp(out));
  REQUIRE(lines.size() == 15);
  CHECK(lines[0] == "14 8");
  CHECK(lines[1].rfind("the ", 0) == 0);
  CHECK(std::count(lines[1].begin(), lines[1].end(), ' ') == 8);
  CHECK(run(han_cmd("embed -i " + a + " " + b + " -o " + tmp.file("again.txt") + kSmall)).exit_code == 0);
  CHECK(slurp(tmp.file("again.txt")) == slurp(out));
}

TEST_CASE("han embed learns from data.train (labels ignored) and data.unlabeled of a config", "[embed_cli]") {
  TempDir tmp;
  const std::string unlabeled = tmp.write("u.txt", "zyzzyva zyzzyva zyzzyva\nzyzzyva zyzzyva\n");
  const std::string out = tmp.file("v.txt");
  const RunResult r = run(han_cmd("embed --config " + source_path("configs/quickstart.json") + " --set data.unlabeled=" +
                                  unlabeled + " --set embed.epochs=1 --set model.embedding_dim=4 -o " + out));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const json summary = json::parse(r.out);
  CHECK(summary["documents"] == 4000 + 2);
  CHECK(summary["words"].get<int>() > 5000);
  CHECK(slurp(out).find("\nzyzzyva ") != std::string::npos);
}

TEST_CASE("han embed: bad input is one line naming the file or key, exit 2", "[embed_cli]") {
  TempDir tmp;
  const std::string text = tmp.write("t.txt", plain_text(10));
  const std::string out = " -o " + tmp.file("v.txt");
  SECTION("no text") { check_one_line_error(run(han_cmd("embed" + out)), 2, "--input"); }
  SECTION("a missing input") { check_one_line_error(run(han_cmd("embed -i " + tmp.file("nope.txt") + out)), 2, "nope.txt"); }
  SECTION("a folder as input") { check_one_line_error(run(han_cmd("embed -i " + tmp.path.string() + out)), 2, tmp.path.string()); }
  SECTION("an input without words") {
    check_one_line_error(run(han_cmd("embed -i " + tmp.write("e.txt", "\n\n") + out)), 2, "e.txt");
  }
  SECTION("no word frequent enough") {
    check_one_line_error(run(han_cmd("embed -i " + text + out + " --set embed.min_count=1000")), 2, "embed.min_count");
  }
  SECTION("a setting out of range") {
    check_one_line_error(run(han_cmd("embed -i " + text + out + " --set embed.window=0")), 2, "embed.window");
    check_one_line_error(run(han_cmd("embed -i " + text + out + " --set embed.sample=-1")), 2, "embed.sample");
  }
  SECTION("an output folder that does not exist, or a folder as output") {
    check_one_line_error(run(han_cmd("embed -i " + text + " -o " + tmp.file("no/such/v.txt"))), 2, "no/such");
    check_one_line_error(run(han_cmd("embed -i " + text + " -o " + tmp.path.string())), 2, tmp.path.string());
  }
  SECTION("no --output") {
    const RunResult r = run(han_cmd("embed -i " + text));
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--output") != std::string::npos);
  }
  CHECK_FALSE(std::filesystem::exists(tmp.file("v.txt")));
}

TEST_CASE("han train with model.embeddings=pretrain: vectors.txt in the run, its words in the vocabulary",
          "[embed_cli]") {
  TempDir tmp;
  // A word the labelled data never uses: only the pretrained vectors can bring it in.
  const std::string unlabeled = tmp.write("u.txt", plain_text(2) + "zyzzyva rocks zyzzyva\nzyzzyva zyzzyva and zyzzyva\n");
  const std::string dir = tmp.file("run");
  const RunResult r = run(han_cmd(
      "train --config " + source_path("configs/quickstart.json") + " --output " + dir +
      " --set model.embeddings=pretrain --set data.unlabeled=" + unlabeled +
      " --set model.embedding_dim=8 --set model.word_hidden=4 --set model.sentence_hidden=4"
      " --set model.attention_dim=8 --set trainer.epochs=1 --set embed.epochs=1 --set trainer.threads=2"));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string vectors = dir + "/vectors.txt";
  REQUIRE(std::filesystem::exists(vectors));
  CHECK(slurp(vectors).find("\nzyzzyva ") != std::string::npos);
  // "embeddings: N of M vocabulary words found in DIR/vectors.txt"
  std::smatch m;
  REQUIRE(std::regex_search(r.err, m, std::regex("embeddings: (\\d+) of (\\d+) vocabulary words found in (\\S+)")));
  CHECK(std::stoi(m[1].str()) > 1000);
  CHECK(m[3] == vectors);
  CHECK(r.err.find("more from the pretrained vectors") != std::string::npos);
  CHECK(slurp(dir + "/model.han").find("\"zyzzyva\"") != std::string::npos);
  CHECK(json::parse(slurp(dir + "/config.json"))["model"]["embeddings"] == "pretrain");
}
