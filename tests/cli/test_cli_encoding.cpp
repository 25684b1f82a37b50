// Text that is not UTF-8, as a user meets it: Latin-1 / Windows-1252 bytes in training
// data, eval data, predict's stdin and files. Each line (or file) that is not UTF-8 is read
// as Windows-1252 and counted in one warning per file; --encoding names the encoding;
// binary input is warned about and read.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "han/infer/classifier.h"
#include "support/cli_fixture.h"
#include "support/paths.h"
#include "support/run.h"
#include "support/small_model.h"

using namespace han::test;
using nlohmann::json;

namespace {

// "café crème brûlée “great”" in Windows-1252 (and Latin-1, but for the quotes) bytes.
const std::string kLatin = "caf\xE9 cr\xE8me br\xFBl\xE9" "e \x93great\x94";
const std::string kCafe = "caf\xC3\xA9", kCreme = "cr\xC3\xA8me", kBrulee = "br\xC3\xBBl\xC3\xA9" "e";
const std::string kOpenQuote = "\xE2\x80\x9C", kCloseQuote = "\xE2\x80\x9D";

// The words of every sentence of each answer of `han predict --format json --explain`.
std::vector<std::vector<std::string>> explained_words(const std::string& out) {
  std::vector<std::vector<std::string>> docs;
  for (const std::string& line : lines_of(out)) {
    std::vector<std::string> words;
    const json answer = json::parse(line);  // kept: a range-for over a temporary's member would dangle
    for (const auto& s : answer.at("attention").at("sentences"))
      for (const auto& w : s["words"]) words.push_back(w[0].get<std::string>());
    docs.push_back(words);
  }
  return docs;
}

using Words = std::vector<std::string>;

// The lines of stderr that are warnings (han: ... not UTF-8 / looks binary).
std::vector<std::string> warnings_in(const std::string& err, const std::string& about) {
  std::vector<std::string> out;
  for (const std::string& line : lines_of(err))
    if (line.find(about) != std::string::npos) out.push_back(line);
  return out;
}

}  // namespace

TEST_CASE("predict reads a stdin line that is not UTF-8 as Windows-1252 and says so once", "[cli][encoding]") {
  const CliFixture& f = cli_fixture();
  const RunResult r = run(han_cmd("predict --format json --explain --model " + f.model), kLatin + "\nplain words\n" + kLatin + "\n");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto docs = explained_words(r.out);
  REQUIRE(docs.size() == 3);
  CHECK(docs[0] == Words{kCafe, kCreme, kBrulee, kOpenQuote, "great", kCloseQuote});
  CHECK(docs[2] == docs[0]);
  const auto w = warnings_in(r.err, "not UTF-8");
  REQUIRE(w.size() == 1);
  CHECK(w[0] == "han: <stdin>: 2 of 3 lines are not UTF-8; read as Windows-1252 (--encoding to choose)");
}

TEST_CASE("predict reads a document file that is not UTF-8 as Windows-1252, one warning per file", "[cli][encoding]") {
  const CliFixture& f = cli_fixture();
  TempDir tmp;
  const std::string a = tmp.write("a.txt", kLatin + "\n"), b = tmp.write("b.txt", "caf\xC3\xA9 ok\n");
  const RunResult r = run(han_cmd("predict --format json --explain --model " + f.model + " " + a + " " + b));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto docs = explained_words(r.out);
  REQUIRE(docs.size() == 2);
  CHECK(docs[0] == Words{kCafe, kCreme, kBrulee, kOpenQuote, "great", kCloseQuote});
  CHECK(docs[1] == Words{kCafe, "ok"});
  const auto w = warnings_in(r.err, "UTF-8");
  REQUIRE(w.size() == 1);
  CHECK(w[0] == "han: " + a + ": not UTF-8; read as Windows-1252 (--encoding to choose)");
}

TEST_CASE("predict --encoding: utf-8 keeps U+FFFD and warns, latin-1 and windows-1252 read every line so",
          "[cli][encoding]") {
  const CliFixture& f = cli_fixture();
  const std::string cmd = "predict --format json --explain --model " + f.model;
  SECTION("utf-8") {
    const RunResult r = run(han_cmd(cmd + " --encoding utf-8"), "caf\xE9 ok\n");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const auto docs = explained_words(r.out);
    REQUIRE(docs.size() == 1);
    CHECK(docs[0] == Words{"caf", "ok"});  // U+FFFD in the text, a separator to the tokenizer
    CHECK(warnings_in(r.err, "not UTF-8") ==
          std::vector<std::string>{
              "han: <stdin>: 1 of 1 lines is not UTF-8; invalid bytes read as U+FFFD (--encoding utf-8)"});
  }
  SECTION("windows-1252 reads UTF-8 bytes as Windows-1252 too, without a warning") {
    const RunResult r = run(han_cmd(cmd + " --encoding cp1252"), "\x93" "caf\xC3\xA9\x94\n");
    REQUIRE(r.exit_code == 0);
    CHECK(explained_words(r.out) == std::vector<Words>{{kOpenQuote, "caf\xC3\xA3", "\xC2\xA9", kCloseQuote}});
    CHECK(r.err.find("UTF-8") == std::string::npos);
  }
  SECTION("latin-1") {
    const RunResult r = run(han_cmd(cmd + " --encoding ISO-8859-1"), "caf\xE9\n");
    REQUIRE(r.exit_code == 0);
    CHECK(explained_words(r.out) == std::vector<Words>{{kCafe}});
  }
}

TEST_CASE("eval reads data lines that are not UTF-8 as Windows-1252 and counts them", "[cli][encoding]") {
  const CliFixture& f = cli_fixture();
  TempDir tmp;
  const std::string tsv = tmp.write("eval.tsv", "pos\tA fine film.\nneg\t" + kLatin + "\npos\tGood.\nneg\tbad \xE9t\xE9\n");
  const RunResult r = run(han_cmd("eval --data-format tsv --model " + f.model + " --data " + tsv));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("documents 4") != std::string::npos);
  CHECK(warnings_in(r.err, "not UTF-8") ==
        std::vector<std::string>{"han: " + tsv + ": 2 of 4 lines are not UTF-8; read as Windows-1252 (--encoding to choose)"});
  // A JSON string with Latin-1 bytes: read, not refused as JSON that is not UTF-8.
  const std::string jsonl = tmp.write("eval.jsonl", "{\"label\": \"pos\", \"text\": \"" + kLatin + "\"}\n");
  const RunResult j = run(han_cmd("eval --model " + f.model + " --data " + jsonl));
  INFO(j.err);
  CHECK(j.exit_code == 0);
  CHECK(warnings_in(j.err, "not UTF-8").size() == 1);
}

TEST_CASE("train reads training lines that are not UTF-8 as Windows-1252: the words are in the vocabulary",
          "[cli][encoding]") {
  TempDir tmp;
  std::string data;
  for (int i = 0; i < 10; ++i) data += "pos\ta good film\nneg\ta bad film\n";
  for (int i = 0; i < 3; ++i) data += "pos\t" + kLatin + "\n";
  const std::string train = tmp.write("train.tsv", data);
  const RunResult r = run(han_cmd("train " + train + " --output " + tmp.file("run") +
                                  " --set data.format=tsv --set tokenizer.min_count=1 --set trainer.epochs=1"
                                  " --set trainer.threads=1" + kTinyModel));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(warnings_in(r.err, "not UTF-8") ==
        std::vector<std::string>{"han: " + train + ": 3 of 23 lines are not UTF-8; read as Windows-1252 (--encoding to choose)"});
  const han::Classifier c = han::load_classifier(tmp.file("run/model.han"));
  for (const std::string& w : {kCafe, kCreme, kBrulee, kOpenQuote, kCloseQuote}) {
    INFO(w);
    CHECK(c.vocab.id(w) != han::Vocab::kUnk);
  }
  CHECK(c.vocab.id("caf") == han::Vocab::kUnk);
  CHECK(c.config.data.encoding == han::TextEncoding::auto_);
}

TEST_CASE("train --encoding utf-8 is data.encoding: the U+FFFD kept, in the stored config", "[cli][encoding]") {
  TempDir tmp;
  std::string data;
  for (int i = 0; i < 10; ++i) data += "pos\ta good film\nneg\ta bad caf\xE9\n";
  const std::string train = tmp.write("train.tsv", data);
  const RunResult r = run(han_cmd("train " + train + " --encoding utf-8 --output " + tmp.file("run") +
                                  " --set data.format=tsv --set tokenizer.min_count=1 --set trainer.epochs=1"
                                  " --set trainer.threads=1" + kTinyModel));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find(train + ": 10 of 20 lines are not UTF-8; invalid bytes read as U+FFFD") != std::string::npos);
  const han::Classifier c = han::load_classifier(tmp.file("run/model.han"));
  CHECK(c.vocab.id("caf") != han::Vocab::kUnk);  // U+FFFD in the text, a separator to the tokenizer
  CHECK(c.vocab.id(kCafe) == han::Vocab::kUnk);
  CHECK(c.config.data.encoding == han::TextEncoding::utf8);
  CHECK(json::parse(slurp(tmp.file("run/config.json")))["data"]["encoding"] == "utf-8");
}

TEST_CASE("an unknown --encoding or data.encoding is one line naming it and the choices, exit 2", "[cli][encoding]") {
  const CliFixture& f = cli_fixture();
  for (const std::string& cmd : {"predict --model " + f.model + " --encoding ebcdic",
                                 "eval --model " + f.model + " --data " + f.data + " --encoding ebcdic",
                                 "train " + f.data + " --encoding ebcdic"}) {
    INFO(cmd);
    const RunResult r = run(han_cmd(cmd), "x\n");
    CHECK(r.exit_code == 2);
    const auto lines = lines_of(r.err);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].find("--encoding") != std::string::npos);
    CHECK(lines[0].find("\"ebcdic\"") != std::string::npos);
    CHECK(lines[0].find("\"auto\", \"utf-8\", \"latin-1\", \"windows-1252\"") != std::string::npos);
  }
  const RunResult r = run(han_cmd("train " + f.data + " --set data.encoding=ebcdic"));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("data.encoding: must be one of") != std::string::npos);
}

TEST_CASE("binary input (NUL bytes) is warned about once and read as text", "[cli][encoding]") {
  const CliFixture& f = cli_fixture();
  const RunResult r = run(han_cmd("predict --model " + f.model), std::string("go\0\0od film\n\0\nfine\n", 19));
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(lines_of(r.out).size() == 3);
  CHECK(warnings_in(r.err, "binary") ==
        std::vector<std::string>{"han: <stdin>: looks binary (NUL bytes); read as text anyway"});
}
