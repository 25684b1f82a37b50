// Runs and their folders, as a user meets them: a folder holding a run is never silently
// replaced (--overwrite replaces it whole), and Ctrl-C or kill in every phase of train and
// ablate ends with 130/143 and one line saying what is kept and how to continue.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "support/paths.h"
#include "support/run.h"
#include "support/small_model.h"
#include "support/signal_run.h"

using namespace han::test;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// `han train` on `train` (a data file) into `out`, a tiny model: a second or two.
std::string train_args(const std::string& train, const std::string& out, const std::string& more = "") {
  return "train --config " + source_path("configs/quickstart.json") + " --set data.train=" + train +
         " --set data.test= --set trainer.epochs=1" + kTinyModel + " --output " + out + more;
}

void check_refused(const RunResult& r, const std::string& line) {
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  const auto errs = lines_of(r.err);
  REQUIRE(errs.size() == 1);
  CHECK(errs[0] == line);
}

}  // namespace

TEST_CASE("train refuses a folder holding a run, naming its files, and --overwrite replaces it",
          "[cli][runs]") {
  const TempDir dir;
  const std::string data = head_of_data(dir, "data/train.jsonl", 300, "small.jsonl");
  const std::string out = dir.file("run");
  for (const char* name : {"model.han", "metrics.jsonl", "config.json"}) {
    INFO(name);
    dir.write(std::string("run/") + name, "from an earlier run\n");
    check_refused(run(han_cmd(train_args(data, out))),
                  "han: error: " + out + " holds a run (" + name + "); pass --overwrite to replace it");
    fs::remove(dir.file(std::string("run/") + name));
  }
  dir.write("run/model.han", "old");
  dir.write("run/checkpoint.han", "old");
  check_refused(run(han_cmd(train_args(data, out))),
                "han: error: " + out + " holds a run (an interrupted one: continue it with han train --resume " + out +
                    "); pass --overwrite to replace it");
  CHECK(slurp(dir.file("run/model.han")) == "old");
  check_refused(run(han_cmd("train --resume " + out + " --overwrite")),
                "han: error: --resume continues a run as it was configured: it takes no data file, --set, --seeds, --init, "
                "--encoding, --output or --overwrite");

  // --overwrite: the old run's files (a temp file of a killed write included) are gone, the
  // user's own files stay, and the new run is complete.
  dir.write("run/metrics.jsonl", "{\"epoch\": 1}\n{\"epoch\": 2}\n{\"epoch\": 3}\n");
  dir.write("run/model.han.tmp.12345", "half a model");
  dir.write("run/notes.txt", "mine");
  const RunResult replaced = run(han_cmd(train_args(data, out, " --overwrite --quiet")));
  INFO(replaced.err);
  REQUIRE(replaced.exit_code == 0);
  CHECK(lines_of(slurp(dir.file("run/metrics.jsonl"))).size() == 1);
  CHECK_FALSE(fs::exists(dir.file("run/checkpoint.han")));
  CHECK_FALSE(fs::exists(dir.file("run/model.han.tmp.12345")));
  CHECK(slurp(dir.file("run/notes.txt")) == "mine");
  CHECK(run(han_cmd("info --model " + out + "/model.han")).exit_code == 0);
  // A finished run is refused too.
  check_refused(run(han_cmd(train_args(data, out))), "han: error: " + out +
                                                         " holds a run (config.json, metrics.jsonl, model.han); pass "
                                                         "--overwrite to replace it");
}

TEST_CASE("a run that fails before training leaves no config.json, so the fixed command is not refused",
          "[cli][runs]") {
  const TempDir dir;
  const std::string data = head_of_data(dir, "data/train.jsonl", 300, "small.jsonl");
  const std::string out = dir.file("run");
  const RunResult missing = run(han_cmd(train_args(data, out, " --set model.embeddings=" + dir.file("no.vec"))));
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("no.vec") != std::string::npos);
  CHECK_FALSE(fs::exists(out + "/config.json"));
  const RunResult fixed = run(han_cmd(train_args(data, out, " --quiet")));
  INFO(fixed.err);
  CHECK(fixed.exit_code == 0);
}

TEST_CASE("ablate refuses a folder holding a training run or another config's ablation, and --overwrite replaces it",
          "[cli][runs][ablate]") {
  const TempDir dir;
  const std::string data = head_of_data(dir, "data/train.jsonl", 200, "small.jsonl");
  const std::string out = dir.file("ablate");
  const std::string args = "ablate --config " + source_path("configs/quickstart.json") + " --set data.train=" + data +
                           " --set data.test= --set trainer.epochs=1 --batching bucket --masks renorm" +
                           kTinyModel + " --output " + out;
  dir.write("ablate/model.han", "a trained model");
  dir.write("ablate/metrics.jsonl", "{}\n");
  check_refused(run(han_cmd(args + " --seeds 1")), "han: error: " + out +
                                        " holds a training run (metrics.jsonl, model.han); pass --overwrite to "
                                        "replace it with this ablation");
  const RunResult first = run(han_cmd(args + " --seeds 1 --overwrite"));
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  CHECK_FALSE(fs::exists(out + "/model.han"));
  CHECK_FALSE(fs::exists(out + "/metrics.jsonl"));
  // The same config (more seeds too) re-uses the finished run; another config is refused.
  const RunResult more = run(han_cmd(args + " --seeds 2"));
  INFO(more.err);
  REQUIRE(more.exit_code == 0);
  CHECK(more.err.find("re-using " + out + "/runs/renorm-bucket-seed1.json") != std::string::npos);
  check_refused(run(han_cmd(args + " --seeds 1 --set optimizer.lr=0.01")),
                "han: error: " + out + " holds an ablation of another config (" + out +
                    "/runs/renorm-bucket-seed1.json); finished runs are re-used only for the same config: pass "
                    "--overwrite to replace it");
  const RunResult other = run(han_cmd(args + " --seeds 1 --set optimizer.lr=0.01 --overwrite"));
  INFO(other.err);
  REQUIRE(other.exit_code == 0);
  CHECK(other.err.find("re-using") == std::string::npos);
  CHECK_FALSE(fs::exists(out + "/runs/renorm-bucket-seed2.json"));  // the old config's runs are gone
}

TEST_CASE("ablate leaves the linear member out unless --with-member, and continues a folder only with the same choice",
          "[cli][runs][ablate][linear_member]") {
  const TempDir dir;
  const std::string data = head_of_data(dir, "data/train.jsonl", 200, "small.jsonl");
  const std::string out = dir.file("ablate");
  const std::string args = "ablate --config " + source_path("configs/quickstart.json") + " --set data.train=" + data +
                           " --set data.test= --set trainer.epochs=1 --batching bucket --masks renorm --seeds 1" +
                           kTinyModel + " --output " + out;
  const RunResult alone = run(han_cmd(args));
  INFO(alone.err);
  REQUIRE(alone.exit_code == 0);
  CHECK(alone.err.find("ablate compares the HAN variants alone: the linear member (model.linear_member) is left "
                       "out; --with-member blends it into every variant") != std::string::npos);
  const std::string run_file = out + "/runs/renorm-bucket-seed1.json";
  CHECK(json::parse(slurp(out + "/ablation.json"))["config"]["model"].value("linear_member", false) == false);
  CHECK(alone.out.find("blended") == std::string::npos);
  // As every ablation was stored before the member existed: such a folder is continued as it is.
  const RunResult off = run(han_cmd(args + " --set model.linear_member=false"));
  REQUIRE(off.exit_code == 0);
  CHECK(off.err.find("re-using " + run_file) != std::string::npos);

  check_refused(run(han_cmd(args + " --with-member")),
                "han: error: " + out + " holds an ablation of the HAN variants alone (" + run_file +
                    "): drop --with-member to continue it, or pass --overwrite to replace it");
  const RunResult with = run(han_cmd(args + " --with-member --overwrite"));
  INFO(with.err);
  REQUIRE(with.exit_code == 0);
  CHECK(with.err.find("left out") == std::string::npos);
  CHECK(json::parse(slurp(out + "/ablation.json"))["config"]["model"]["linear_member"] == true);
  CHECK(with.out.find("verdict: the linear member is blended into every variant (--with-member)") != std::string::npos);
  check_refused(run(han_cmd(args)), "han: error: " + out + " holds an ablation with the linear member blended in (" +
                                        run_file + "): add --with-member to continue it, or pass --overwrite to "
                                        "replace it");
}

TEST_CASE("Ctrl-C while train reads its data: exit 130, nothing written, an old run left as it was",
          "[cli][runs][signals]") {
  const TempDir dir;
  const std::string big = repeated_data(dir, "data/train.jsonl", 6, "big.jsonl");
  const std::string out = dir.file("run");
  const RunResult fresh =
      run_and_signal(train_args(big, out, " --log-level debug"), "reading train data", "INT", dir.file("err1"));
  CHECK(fresh.exit_code == 130);
  CHECK(fresh.out.empty());
  CHECK(last_line(fresh.err) == "han: interrupted while reading the data; nothing was written");
  CHECK_FALSE(fs::exists(out));  // not even the folder it had made

  // With --overwrite, an interruption before the data is read keeps the old run whole.
  dir.write("run/model.han", "old model");
  dir.write("run/metrics.jsonl", "old metrics\n");
  const RunResult over = run_and_signal(train_args(big, out, " --overwrite --log-level debug"), "reading train data",
                                        "TERM", dir.file("err2"));
  CHECK(over.exit_code == 143);
  CHECK(last_line(over.err) == "han: interrupted while reading the data; nothing was written");
  CHECK(dir.entries().count("run") == 1);
  CHECK(slurp(out + "/model.han") == "old model");
  CHECK(slurp(out + "/metrics.jsonl") == "old metrics\n");
  CHECK_FALSE(fs::exists(out + "/config.json"));
}

TEST_CASE("Ctrl-C while train scores dev after its last epoch: exit 130, a checkpoint, and --resume ends as an "
          "uninterrupted run",
          "[cli][runs][signals]") {
  const TempDir dir;
  const std::string small = head_of_data(dir, "data/train.jsonl", 150, "small.jsonl");
  const std::string dev = repeated_data(dir, "data/dev.jsonl", 4, "dev.jsonl");
  // The quickstart model (not the tiny one) on 2000 dev documents: seconds of scoring.
  const std::string args = "train --config " + source_path("configs/quickstart.json") + " --set data.train=" + small +
                           " --set data.dev=" + dev + " --set data.test= --set trainer.epochs=1 --output ";
  const std::string out = dir.file("run");
  const RunResult r = run_and_signal(args + out + " --log-level debug", "epoch 1: scoring 2000 dev documents", "INT",
                                     dir.file("err"));
  CHECK(r.exit_code == 130);
  CHECK(r.out.empty());
  CHECK(last_line(r.err) == "han: interrupted: checkpoint written to " + out +
                                "/checkpoint.han; continue with: han train --resume " + out);
  CHECK(r.err.find("dev scoring took") == std::string::npos);  // it stopped mid-scoring
  const RunResult resumed = run(han_cmd("train --resume " + out));
  INFO(resumed.err);
  REQUIRE(resumed.exit_code == 0);
  CHECK(resumed.err.find("resuming at epoch 1's dev scoring") != std::string::npos);
  CHECK(nlohmann::json::parse(resumed.out)["epochs"] == 1);
  REQUIRE(run(han_cmd(args + dir.file("straight") + " --quiet")).exit_code == 0);
  CHECK(slurp(out + "/model.han") == slurp(dir.file("straight/model.han")));
  CHECK(lines_of(slurp(out + "/metrics.jsonl")).size() == 1);
}

TEST_CASE("SIGTERM while train scores the test set: exit 143, the complete model is named", "[cli][runs][signals]") {
  const TempDir dir;
  const std::string small = head_of_data(dir, "data/train.jsonl", 150, "small.jsonl");
  const std::string test = repeated_data(dir, "data/test.jsonl", 3, "test.jsonl");
  const std::string out = dir.file("run");
  const RunResult r = run_and_signal("train --config " + source_path("configs/quickstart.json") + " --set data.train=" +
                                         small + " --set data.test=" + test +
                                         " --set trainer.epochs=1 --log-level debug --output " + out,
                                     "scoring 3000 test documents", "TERM", dir.file("err"));
  CHECK(r.exit_code == 143);
  CHECK(r.out.empty());
  CHECK(last_line(r.err) == "han: interrupted: training is complete and the model is in " + out +
                                "/model.han; the test set was not scored");
  CHECK_FALSE(fs::exists(out + "/checkpoint.han"));
  CHECK(run(han_cmd("info --model " + out + "/model.han")).exit_code == 0);
}

TEST_CASE("Ctrl-C during ablate: exit 130, finished runs kept, and the same command continues from them",
          "[cli][runs][ablate][signals]") {
  const TempDir dir;
  const std::string out = dir.file("ablate");
  auto ablate_args = [&](const std::string& data, const std::string& output) {
    return "ablate --config " + source_path("configs/quickstart.json") + " --set data.train=" + data +
           " --set data.test= --set trainer.epochs=6 --seeds 1 --batching bucket" + kTinyModel + " --output " + output;
  };
  const std::string args = ablate_args(head_of_data(dir, "data/train.jsonl", 600, "small.jsonl"), out);
  // Stopped while the second run trains (about a second): the first is stored, the second is not.
  const RunResult r = run_and_signal(args, "training renorm-bucket-seed1", "INT", dir.file("err"));
  CHECK(r.exit_code == 130);
  CHECK(r.out.empty());
  CHECK(last_line(r.err) == "han: interrupted: 1 of 3 runs finished, stored in " + out +
                                "/runs; run the same command again to continue (finished runs are re-used)");
  CHECK(fs::exists(out + "/runs/none-bucket-seed1.json"));
  CHECK_FALSE(fs::exists(out + "/runs/renorm-bucket-seed1.json"));
  CHECK_FALSE(fs::exists(out + "/ablation.json"));
  const RunResult again = run(han_cmd(args));
  INFO(again.err);
  REQUIRE(again.exit_code == 0);
  CHECK(again.err.find("re-using " + out + "/runs/none-bucket-seed1.json") != std::string::npos);
  CHECK(fs::exists(out + "/ablation.json"));

  // While it reads its data: nothing to keep.
  const std::string big = repeated_data(dir, "data/train.jsonl", 6, "big.jsonl");
  const RunResult reading =
      run_and_signal(ablate_args(big, dir.file("big")) + " --log-level debug", "reading train data", "TERM",
                     dir.file("err2"));
  CHECK(reading.exit_code == 143);
  CHECK(last_line(reading.err) == "han: interrupted while reading the data; nothing was trained");
}

TEST_CASE("two trainings into one folder: the second is refused, naming the first, and nothing of it is mixed in",
          "[cli][runs][lock]") {
  TempDir dir;
  const std::string train = repeated_data(dir, "data/train.jsonl", 2, "train.jsonl");
  const std::string out = dir.file("dup"), err = dir.file("first.err");
  // The first run is held stopped once its epoch 1 began (signal_on_event), and the second
  // starts then; the first is let go (SIGCONT) once the second has ended.
  const std::string first = han_cmd(train_args(train, out, " --set trainer.epochs=2 --log-level debug")) + " 2> " + err;
  const std::string second = han_cmd(train_args(train, out, " --overwrite"));
  const RunResult r = run(first + " & pid=$!; kill -STOP $pid; for i in $(seq 3000); do grep -qF \"epoch 1 batch 1/\" " + err +
                          " && break; kill -CONT $pid; sleep 0.02; kill -STOP $pid; done; " + second +
                          " > second.out 2> second.err; echo $? > second.rc; kill -CONT $pid; wait $pid",
                          "");
  INFO(r.err);
  CHECK(r.exit_code == 0);  // the first run ends as if alone
  const std::string second_err = slurp(fs::current_path() / "second.err");
  CHECK(slurp(fs::current_path() / "second.rc") == "2\n");
  CHECK(std::regex_search(second_err, std::regex("^han: error: " + out + " is in use by han train \\(pid [0-9]+\\): one run "
                                                 "writes a folder at a time; wait for it to end, or choose another folder\n$")));
  CHECK(slurp(fs::current_path() / "second.out").empty());
  // The folder holds the first run alone: its config (2 epochs), its two epochs' metrics, no lock.
  CHECK(nlohmann::json::parse(slurp(out + "/config.json"))["trainer"]["epochs"] == 2);
  CHECK(lines_of(slurp(out + "/metrics.jsonl")).size() == 2);
  CHECK_FALSE(fs::exists(out + "/.han.lock"));
  for (const char* f : {"second.out", "second.err", "second.rc"}) fs::remove(fs::current_path() / f);
}

TEST_CASE("a run folder's lock left by a killed run is taken over", "[cli][runs][lock]") {
  TempDir dir;
  const std::string train = head_of_data(dir, "data/train.jsonl", 200, "train.jsonl");
  const std::string out = dir.file("stale");
  fs::create_directories(out);
  dir.write("stale/.han.lock", "han train (pid 999999)\n");  // written, but no process holds it
  const RunResult r = run(han_cmd(train_args(train, out, " --quiet")));
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(fs::exists(out + "/model.han"));
  CHECK_FALSE(fs::exists(out + "/.han.lock"));
}

TEST_CASE("a training refused before it starts leaves no folder behind", "[cli][runs][lock]") {
  TempDir dir;
  const std::string out = dir.file("never");
  const RunResult r = run(han_cmd(train_args(dir.file("missing.jsonl"), out)));
  CHECK(r.exit_code == 2);
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("train FILE trains on a data file with the defaults into runs/<its name>, and without data says how",
          "[cli][runs]") {
  const TempDir dir;
  head_of_data(dir, "data/train.jsonl", 200, "small.jsonl");
  const std::string in_dir = "cd " + dir.path.string() + " && ";
  const RunResult r = run(in_dir + han_cmd("train small.jsonl --set trainer.epochs=1 --set model.linear_member=false" +
                                           kTinyModel));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(fs::exists(dir.file("runs/small/model.han")));
  const json saved = json::parse(slurp(dir.file("runs/small/config.json")));
  CHECK(fs::path(saved["data"]["train"].get<std::string>()).filename() == "small.jsonl");

  // Data given with --set alone is the same.
  const RunResult set = run(in_dir + han_cmd("train --set data.train=small.jsonl --set trainer.epochs=1 "
                                             "--set model.linear_member=false -o by_set" + kTinyModel));
  INFO(set.err);
  CHECK(set.exit_code == 0);
  CHECK(fs::exists(dir.file("by_set/model.han")));

  check_refused(run(in_dir + han_cmd("train")),
                "han: error: train needs data: han train FILE (with the defaults), --config FILE, or --resume DIR");
  check_refused(run(in_dir + han_cmd("train small.jsonl --resume runs/unfinished")),
                "han: error: --resume continues a run as it was configured: it takes no data file, --set, --seeds, "
                "--init, --encoding, --output or --overwrite");
}

TEST_CASE("train and eval read fastText and tsv files by their content, and the run config names the format found",
          "[cli][runs][data_format]") {
  const TempDir dir;
  // The bundled jsonl slice rewritten as fastText lines and as tsv rows.
  const auto records = lines_of(slurp(source_path("data/train.jsonl")));
  std::string fasttext, tsv = "label\ttext\n";
  for (std::size_t i = 0; i < 200; ++i) {
    const json j = json::parse(records[i]);
    std::string text = j["text"].get<std::string>();
    for (char& c : text)
      if (c == '\t' || c == '\n' || c == '\r') c = ' ';
    fasttext += "__label__" + j["label"].get<std::string>() + " " + text + "\n";
    tsv += j["label"].get<std::string>() + "\t" + text + "\n";
  }
  const std::string ft_file = dir.write("reviews.txt", fasttext), tsv_file = dir.write("reviews.data", tsv);
  const std::string out = dir.file("run");
  const RunResult r = run(han_cmd("train " + ft_file + " --set data.dev=" + tsv_file +
                                  " --set trainer.epochs=1 --set model.linear_member=false -o " + out + kTinyModel));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  // train and dev differ: each is told apart as it is read, and the config keeps auto.
  CHECK(json::parse(slurp(out + "/config.json"))["data"]["format"] == "auto");

  const RunResult same = run(han_cmd("train " + ft_file + " --set trainer.epochs=1 --set model.linear_member=false -o " +
                                     dir.file("ft") + kTinyModel));
  REQUIRE(same.exit_code == 0);
  CHECK(json::parse(slurp(dir.file("ft/config.json")))["data"]["format"] == "fasttext");

  for (const std::string& data : {ft_file, tsv_file}) {
    const RunResult e = run(han_cmd("eval --model " + out + " --data " + data));
    INFO(e.err);
    CHECK(e.exit_code == 0);
    CHECK_THAT(e.out, Catch::StartsWith("documents 200 "));
  }
}

TEST_CASE("train --resume on a finished run gives the command that trains it further, and that command runs",
          "[cli][runs]") {
  const TempDir dir;
  const std::string data = head_of_data(dir, "data/train.jsonl", 200, "small.jsonl");
  const std::string out = dir.file("run");
  REQUIRE(run(han_cmd(train_args(data, out))).exit_code == 0);
  const std::string line = "han: error: " + out + ": the run finished (" + out +
                           "/model.han); --resume continues an interrupted run. To train it further, from its "
                           "weights: han train --config " + out + "/config.json --init " + out +
                           "/model.han --set trainer.epochs=N --output NEW_DIR";
  check_refused(run(han_cmd("train --resume " + out)), line);
  check_refused(run(han_cmd("train --resume " + out + " --set trainer.epochs=3")), line);

  const RunResult further = run(han_cmd("train --config " + out + "/config.json --init " + out +
                                        "/model.han --set trainer.epochs=1 --output " + dir.file("further")));
  INFO(further.err);
  CHECK(further.exit_code == 0);
  CHECK(fs::exists(dir.file("further/model.han")));
}
