// The run folder (train/run_folder) and `han train`'s ways out: a new run writes its
// effective config with absolute paths; --resume reads it back and needs a checkpoint;
// an interrupted run ends with 128 + signal after one line saying how to continue.
#include <catch2/catch.hpp>

#include <filesystem>
#include <iterator>
#include <nlohmann/json.hpp>

#include "han/core/error.h"
#include "han/core/io.h"
#include "han/train/run_folder.h"
#include "support/run.h"
#include "support/signal_run.h"

using namespace han;
using namespace han::test;

namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

void check_one_error_line(const RunResult& r, const std::string& must_mention) {
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  const auto errs = lines_of(r.err);
  REQUIRE(errs.size() == 1);
  CHECK(errs[0].rfind("han: error: ", 0) == 0);
  CHECK(errs[0].find(must_mention) != std::string::npos);
}

}  // namespace

TEST_CASE("a run folder names its files, and no folder means no files", "[run_folder]") {
  const RunFiles f = run_files("runs/x");
  CHECK(f.folder == "runs/x");
  CHECK(f.model == "runs/x/model.han");
  CHECK(f.metrics == "runs/x/metrics.jsonl");
  CHECK(f.checkpoint == "runs/x/checkpoint.han");
  CHECK(f.config == "runs/x/config.json");
  const RunFiles none = run_files("");
  CHECK((none.model.empty() && none.metrics.empty() && none.checkpoint.empty() && none.config.empty()));
}

TEST_CASE("a new run makes data paths absolute, creates its folder and writes config.json when it begins",
          "[run_folder]") {
  const TempDir dir;
  Config cfg;
  cfg.data.train = "some/train.jsonl";
  cfg.data.dev = "../dev.jsonl";
  const std::string folder = dir.file("a/b/run");
  const PreparedRun run = plan_run(cfg, folder, false);
  REQUIRE(std::filesystem::is_directory(folder));
  // Planning writes no run file: the folder holds the run's lock alone.
  const auto entries = std::distance(std::filesystem::directory_iterator(folder), std::filesystem::directory_iterator());
  CHECK(entries == 1);
  CHECK(std::filesystem::exists(folder + "/" + han::RunLock::kFileName));
  begin_run(run);
  CHECK_FALSE(run.resume);
  CHECK(std::filesystem::path(run.config.data.train).is_absolute());
  CHECK(run.config.data.train == std::filesystem::absolute("some/train.jsonl").lexically_normal().string());
  CHECK(run.config.data.dev == std::filesystem::absolute("../dev.jsonl").lexically_normal().string());
  CHECK(run.config.data.test.empty());  // an unset path stays unset
  REQUIRE(std::filesystem::is_directory(folder));
  const Config saved = config_from_json(nlohmann::json::parse(read_file(run.files.config)), run.files.config);
  CHECK(config_to_json(saved) == config_to_json(run.config));

  SECTION("resuming needs the checkpoint, then reads the config back") {
    CHECK(error_of([&] { reopen_run(folder); }) ==
          run.files.checkpoint + ": no checkpoint to resume from (the run finished, or was never interrupted)");
    dir.write("a/b/run/checkpoint.han", "");
    const PreparedRun again = reopen_run(folder);
    CHECK(again.resume);
    CHECK(again.files.model == run.files.model);
    CHECK(config_to_json(again.config) == config_to_json(run.config));
    dir.write("a/b/run/config.json", "{\"model\": ");
    CHECK(error_of([&] { reopen_run(folder); }) == run.files.config + ": malformed JSON");
  }
  SECTION("a folder holding a run is refused unless overwriting; overwriting removes the old run's files") {
    CHECK(error_of([&] { plan_run(cfg, folder, false); }) ==
          folder + " holds a run (config.json); pass --overwrite to replace it");
    dir.write("a/b/run/model.han", "old");
    dir.write("a/b/run/metrics.jsonl.tmp.77", "old");
    dir.write("a/b/run/mine.txt", "kept");
    CHECK(run_files_held(folder) == "config.json, model.han");
    const PreparedRun again = plan_run(cfg, folder, true);
    begin_run(again);
    CHECK(dir.entries().size() == 1);
    CHECK(std::filesystem::exists(again.files.config));
    CHECK_FALSE(std::filesystem::exists(again.files.model));
    CHECK_FALSE(std::filesystem::exists(folder + "/metrics.jsonl.tmp.77"));
    CHECK(read_file(folder + "/mine.txt") == "kept");
    abandon_run(again);  // it failed before training: config.json goes too
    CHECK(run_files_held(folder).empty());
  }
  SECTION("a file in the way of the folder") {
    const std::string file = dir.write("taken", "x");
    CHECK(error_of([&] { plan_run(cfg, file, true); }) == file + ": --output exists and is not a folder");
  }
}

TEST_CASE("han train: bad run folders are one error line, exit 2", "[cli][run_folder]") {
  const TempDir dir;
  const std::string file = dir.write("taken", "x");
  check_one_error_line(run(han_cmd("train --config " + source_path("configs/quickstart.json") + " --output " + file)),
                       file + ": --output exists and is not a folder");
  dir.write("run/checkpoint.han", "");
  dir.write("run/config.json", "not json");
  check_one_error_line(run(han_cmd("train --resume " + dir.file("run"))), dir.file("run/config.json") + ": malformed JSON");
}

TEST_CASE("SIGINT during training: exit 130, one line on how to resume, and the resumed run completes",
          "[cli][resume]") {
  const TempDir dir;
  const auto all = lines_of(slurp(source_path("data/train.jsonl")));
  std::string small;
  for (std::size_t i = 0; i < 300; ++i) small += all[i] + "\n";
  const std::string data = dir.write("small.jsonl", small);
  const std::string out = dir.file("run");
  const std::string train = han_cmd("train --quiet --config " + source_path("configs/quickstart.json") +
                                    " --set data.train=" + data +
                                    " --set data.test= --set trainer.epochs=8 --set trainer.patience=0"
                                    " --set model.embedding_dim=8 --set model.word_hidden=4"
                                    " --set model.sentence_hidden=4 --set model.attention_dim=8 --output " + out);
  const RunResult stopped = run(signal_on_event(train, "[ -s " + out + "/metrics.jsonl ]", "INT"));
  INFO(stopped.err);
  CHECK(stopped.exit_code == 130);
  CHECK(stopped.out.empty());
  const auto errs = lines_of(stopped.err);
  REQUIRE(errs.size() == 1);
  CHECK(errs[0] == "han: interrupted: checkpoint written to " + out + "/checkpoint.han; continue with: han train --resume " + out);
  REQUIRE(std::filesystem::exists(out + "/checkpoint.han"));

  const RunResult resumed = run(han_cmd("train --quiet --resume " + out));
  INFO(resumed.err);
  REQUIRE(resumed.exit_code == 0);
  const auto lines = lines_of(resumed.out);
  REQUIRE(lines.size() == 1);
  const nlohmann::json summary = nlohmann::json::parse(lines[0]);
  CHECK(summary["model"] == out + "/model.han");
  CHECK(summary["epochs"] == 8);
  CHECK(summary["test"].is_null());
  CHECK_FALSE(std::filesystem::exists(out + "/checkpoint.han"));
}
