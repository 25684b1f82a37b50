// What long commands show on stderr while they work: a progress bar (on a terminal, or
// with --progress; never on stdout; not with --quiet) and --log-level debug detail; and
// help that names what each option takes.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>

#include "support/cli_fixture.h"
#include "support/paths.h"
#include "support/run.h"
#include "support/signal_run.h"

using namespace han::test;
using nlohmann::json;

namespace {

// A bar redrawn in place: carriage returns, and no line of it reaches stdout.
void check_bar(const RunResult& with, const RunResult& without, const std::string& must_show) {
  INFO("stderr with --progress: " << with.err);
  CHECK(with.exit_code == 0);
  CHECK(without.exit_code == 0);
  CHECK(has(with.err, "\r["));
  CHECK(has(with.err, must_show));
  CHECK_FALSE(has(without.err, "\r"));
  CHECK(with.out == without.out);
  CHECK_FALSE(with.out.empty());
}

}  // namespace

TEST_CASE("eval --progress draws a bar with docs/s and ETA on stderr, and stdout stays the same", "[cli][progress]") {
  const CliFixture& f = cli_fixture();
  const TempDir dir;
  const std::string data = repeated_data(dir, "data/dev.jsonl", 4, "dev.jsonl");
  const std::string args = "eval --model " + f.model + " --data " + data + " --batch-size 16";
  const RunResult with = run(han_cmd(args + " --progress"));
  check_bar(with, run(han_cmd(args)), "/2000 documents");
  CHECK(has(with.err, " docs/s"));
  CHECK(has(with.err, "ETA "));
  const RunResult quiet = run(han_cmd(args + " --progress --quiet"));
  CHECK(quiet.exit_code == 0);
  CHECK(quiet.err.empty());
}

TEST_CASE("predict --progress: files count towards an ETA, stdin shows documents and docs/s", "[cli][progress]") {
  const CliFixture& f = cli_fixture();
  const TempDir dir;
  std::string files;
  for (int i = 0; i < 40; ++i)
    files += " " + dir.write("doc" + std::to_string(i) + ".txt", i % 2 ? "A wonderful film." : "Dull and boring.");
  const std::string args = "predict --model " + f.model + " --batch-size 4";
  const RunResult with_files = run(han_cmd(args + " --progress" + files));
  check_bar(with_files, run(han_cmd(args + files)), "/40 documents");
  CHECK(has(with_files.err, "ETA "));

  std::string lines;
  for (int i = 0; i < 2000; ++i) lines += i % 2 ? "A wonderful, moving film.\n" : "Dull and boring.\n";
  const RunResult with_stdin = run(han_cmd(args + " --progress"), lines);
  const RunResult without_stdin = run(han_cmd(args), lines);
  INFO(with_stdin.err);
  CHECK(has(with_stdin.err, "\r"));
  CHECK(has(with_stdin.err, " documents "));
  CHECK(has(with_stdin.err, " docs/s"));
  CHECK_FALSE(has(with_stdin.err, "ETA"));
  CHECK_FALSE(has(with_stdin.err, "/2000"));
  CHECK(with_stdin.out == without_stdin.out);
  CHECK(lines_of(with_stdin.out).size() == 2000);
}

TEST_CASE("ablate --progress shows the run, its variant and its epoch, and the results stay the same",
          "[cli][progress]") {
  const CliFixture& f = cli_fixture();
  const TempDir dir;
  const std::string args = "ablate --config " + source_path("configs/quickstart.json") + " --set data.train=" +
                           f.data +
                           " --set data.test= --set trainer.epochs=2 --seeds 1 --batching bucket --masks none,renorm"
                           " --set model.embedding_dim=8 --set model.word_hidden=4 --set model.sentence_hidden=4"
                           " --set model.attention_dim=8 --output ";
  const RunResult with = run(han_cmd(args + dir.file("a") + " --progress"));
  const RunResult without = run(han_cmd(args + dir.file("b")));
  INFO(with.err);
  REQUIRE(with.exit_code == 0);
  REQUIRE(without.exit_code == 0);
  CHECK(has(with.err, "\r["));
  CHECK(has(with.err, "run 1/2 none-bucket-seed1 epoch 1/2"));
  CHECK(has(with.err, "run 2/2 renorm-bucket-seed1 epoch 2/2"));
  CHECK_FALSE(has(without.err, "\r"));
  CHECK_FALSE(has(with.out, "\r"));
  json a = json::parse(slurp(dir.file("a/ablation.json"))), b = json::parse(slurp(dir.file("b/ablation.json")));
  for (json* j : {&a, &b})
    for (json& v : (*j)["variants"]) v.erase("seconds_per_epoch");  // wall clock
  CHECK(a["variants"] == b["variants"]);
}

TEST_CASE("log level debug adds per-batch shapes, reading and scoring times, and info does not", "[cli][progress]") {
  const CliFixture& f = cli_fixture();
  const TempDir dir;
  const std::string args = "train --config " + source_path("configs/quickstart.json") + " --set data.train=" + f.data +
                           " --set data.test= --set trainer.epochs=1 --set model.embedding_dim=8"
                           " --set model.word_hidden=4 --set model.sentence_hidden=4 --set model.attention_dim=8";
  const RunResult debug = run(han_cmd(args + " --log-level debug --output " + dir.file("debug")));
  const RunResult info = run(han_cmd(args + " --output " + dir.file("info")));
  INFO(debug.err);
  REQUIRE(debug.exit_code == 0);
  REQUIRE(info.exit_code == 0);
  const auto lines = lines_of(debug.err);
  int steps = 0;
  for (const std::string& line : lines)
    if (has(line, "(B x S x W)") && has(line, " real tokens, ") && has(line, " s") && has(line, "epoch 1 batch "))
      ++steps;
  CHECK(steps == 38);  // 1200 documents in batches of 32
  CHECK(has(debug.err, "han: reading train data from " + f.data));
  CHECK(has(debug.err, "han: train data: 1200 documents read and tokenized in "));
  CHECK(has(debug.err, "han: dev data: 500 documents read and encoded in "));
  CHECK(has(debug.err, "han: epoch 1: dev scoring took "));
  CHECK(json::parse(debug.out)["best_epoch"] == 1);
  CHECK_FALSE(has(info.err, "B x S x W"));
  CHECK_FALSE(has(info.err, "reading"));
  CHECK_FALSE(has(info.err, "scoring"));

  const RunResult eval = run(han_cmd("eval --log-level debug --model " + f.model + " --data " +
                                     source_path("data/dev.jsonl")));
  CHECK(eval.exit_code == 0);
  CHECK(has(eval.err, "han: 500 documents read, tokenized and encoded in "));
  CHECK(has(eval.err, "han: 500 documents scored in "));
}

TEST_CASE("help names what options take (FILE, DIR) and ablate's defaults", "[cli][progress][help]") {
  const std::string train = run(han_cmd("train --help")).out;
  INFO(train);
  for (const char* part : {"--config FILE", "--resume DIR", "--output DIR", "--overwrite", "--set KEY=VALUE"})
    CHECK(has(train, part));
  const std::string ablate = run(han_cmd("ablate --help")).out;
  INFO(ablate);
  CHECK(has(ablate, "--config FILE"));
  CHECK(has(ablate, "--output DIR"));
  CHECK(has(ablate, "--overwrite"));
  CHECK(has(ablate, "=none,renorm,additive"));
  CHECK(has(ablate, "=bucket,random"));
  for (const char* verb : {"predict", "eval", "info"})
    CHECK(has(run(han_cmd(std::string(verb) + " --help")).out, "--model FILE"));
  CHECK(has(run(han_cmd("eval --help")).out, "--data FILE"));
  CHECK(has(run(han_cmd("predict --help")).out, "PATH"));
}
