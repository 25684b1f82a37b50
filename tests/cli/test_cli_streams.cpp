// Data read once may come from anywhere a user's shell can point: stdin ("-"),
// /dev/stdin, a process substitution <(...), or a gzip'd file. Run through the binary.
#include <catch2/catch.hpp>

#include <string>

#include "support/cli_fixture.h"
#include "support/paths.h"
#include "support/run.h"

using namespace han::test;

namespace {

// `han eval --json` on the fixture's data as given by `data_arg`, with `prefix` before han.
RunResult eval_json(const std::string& prefix, const std::string& data_arg) {
  const CliFixture& f = cli_fixture();
  return run(prefix + han_cmd("eval --json --quiet --model " + f.model + " --data " + data_arg));
}

// The scores part of eval's JSON (timings differ from run to run).
std::string scores(const std::string& json) { return json.substr(0, json.find("\"docs_per_second\"")); }

}  // namespace

TEST_CASE("eval reads its data from stdin, /dev/stdin, <(...) and gzip as from the file", "[cli][streams]") {
  const CliFixture& f = cli_fixture();
  const RunResult file = eval_json("", f.data);
  REQUIRE(file.exit_code == 0);
  REQUIRE(file.out.find("\"accuracy\"") != std::string::npos);
  TempDir tmp;
  REQUIRE(run("gzip -c " + f.data + " > " + (tmp.path / "data.gz").string()).exit_code == 0);
  for (const auto& [prefix, arg] : std::vector<std::pair<std::string, std::string>>{
           {"cat " + f.data + " | ", "-"},
           {"cat " + f.data + " | ", "/dev/stdin"},
           {"", "<(cat " + f.data + ")"},
           {"", (tmp.path / "data.gz").string()},
           {"", "<(gzip -c " + f.data + ")"},
           {"gzip -c " + f.data + " | ", "-"}}) {
    INFO(prefix << " --data " << arg);
    const RunResult r = eval_json(prefix, arg);
    CHECK(r.exit_code == 0);
    CHECK(r.err.empty());
    CHECK(scores(r.out) == scores(file.out));
  }
}

TEST_CASE("a cut-short gzip file is an error naming it, not a smaller data set", "[cli][streams]") {
  const CliFixture& f = cli_fixture();
  TempDir tmp;
  const std::string cut = (tmp.path / "cut.jsonl.gz").string();
  REQUIRE(run("gzip -c " + f.data + " | head -c 3000 > " + cut).exit_code == 0);
  const RunResult r = eval_json("", cut);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "han: error: " + cut + ": the gzip data ends early (is the file cut short?)\n");
}

TEST_CASE("train reads its training data from a pipe, and says - cannot be read twice", "[cli][streams]") {
  const CliFixture& f = cli_fixture();
  TempDir tmp;
  const std::string base = "train --config " + source_path("configs/quickstart.json") +
                           " --set trainer.epochs=1 --set model.embedding_dim=8 --set model.word_hidden=4"
                           " --set model.sentence_hidden=4 --set model.attention_dim=8 --quiet";
  const RunResult piped = run("head -300 " + f.data + " | " +
                              han_cmd(base + " --set data.train=- --output " + (tmp.path / "piped").string()));
  CHECK(piped.exit_code == 0);
  CHECK(piped.out.find("\"train_documents\":300") != std::string::npos);
  CHECK(slurp(tmp.path / "piped" / "config.json").find("\"train\": \"-\"") != std::string::npos);

  const RunResult twice = run("cat " + f.data + " | " +
                              han_cmd(base + " --set data.train=- --set data.dev=- --output " + (tmp.path / "twice").string()));
  CHECK(twice.exit_code == 2);
  CHECK(twice.err.find("data.dev: \"-\" is also data.train") != std::string::npos);
}

TEST_CASE("pretraining refuses training data from a pipe: it reads the training text twice", "[cli][streams]") {
  const CliFixture& f = cli_fixture();
  TempDir tmp;
  const RunResult r = run("cat " + f.data + " | " +
                          han_cmd("train --config " + source_path("configs/quickstart.json") +
                                  " --set data.train=- --set model.embeddings=pretrain --output " +
                                  (tmp.path / "run").string()));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("data.train: \"-\" is a stream") != std::string::npos);
  CHECK(r.err.find("save it to a file first") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(tmp.path / "run" / "config.json"));
}
