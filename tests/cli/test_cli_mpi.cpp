// Distributed training as a user runs it: mpirun -np 2 (and 4, over TCP) han train on this
// machine. Ranks sharing the data give one process's model within rounding, the same model
// run after run; with trainer.allreduce exact, two ranks of T threads give the very model
// one process of 2T threads gives; rank 0 alone writes; a failing rank ends the job with
// one line naming it; SIGTERM to mpirun leaves one checkpoint that --resume continues,
// under any number of ranks. Without MPI (HAN_MPI=OFF), a launch as
// several ranks is refused.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "han/infer/classifier.h"
#include "han/nn/parameters.h"
#include "han/train/run_folder.h"
#include "support/paths.h"
#include "support/run.h"
#include "support/signal_run.h"

using namespace han::test;
namespace fs = std::filesystem;

namespace {

const std::string kMpiModel =
    " --set model.embedding_dim=16 --set model.word_hidden=8 --set model.sentence_hidden=8"
    " --set model.attention_dim=16 --set model.dropout=0.3 --set model.word_dropout=0.1";

std::string train_args(const std::string& train, const std::string& dev, const std::string& out, int threads,
                       const std::string& more = "") {
  return "train --config " + source_path("configs/quickstart.json") + " --set data.train=" + train +
         " --set data.dev=" + dev + " --set data.test= --set trainer.epochs=2 --set trainer.threads=" +
         std::to_string(threads) + kMpiModel + " --output " + out + more;
}

#ifdef HAN_MPI

// mpirun as docs/distributed.md shows it, on this machine (2 cores: --oversubscribe);
// `options` go to mpirun (--mca btl tcp,self: over loopback TCP).
std::string mpirun(int ranks, const std::string& han_args, const std::string& options = "") {
  return std::string(HAN_MPIEXEC) + " --oversubscribe --allow-run-as-root " + options + "-np " + std::to_string(ranks) +
         " " + han_cmd(han_args);
}
const std::string kOverTcp = "--mca btl tcp,self ";

// Two programs in one job (mpirun's "A : B"): one rank each.
std::string mpirun_pair(const std::string& args0, const std::string& args1) {
  return std::string(HAN_MPIEXEC) + " --oversubscribe --allow-run-as-root -np 1 " + han_cmd(args0) + " : -np 1 " +
         han_cmd(args1);
}

bool same_model(const std::string& a, const std::string& b) {
  han::Classifier x = han::load_classifier(a), y = han::load_classifier(b);
  bool same = true;
  for (const han::ParamRef& r : han::zip_params(x.params, y.params)) same = same && r.value->cwiseEqual(*r.grad).all();
  return same;
}

struct EpochScores {
  double train_loss, dev_loss, dev_accuracy;
};

// The numbers of each epoch (not its times) in a run folder's metrics.jsonl.
std::vector<EpochScores> epoch_scores(const std::string& folder) {
  std::vector<EpochScores> out;
  for (const std::string& line : lines_of(slurp(fs::path(folder) / "metrics.jsonl"))) {
    const nlohmann::json j = nlohmann::json::parse(line);
    out.push_back({j["train_loss"].get<double>(), j["dev_loss"].get<double>(), j["dev_accuracy"].get<double>()});
  }
  return out;
}

std::vector<std::string> lines_starting(const std::string& text, const std::string& prefix) {
  std::vector<std::string> out;
  for (const std::string& line : lines_of(text))
    if (line.rfind(prefix, 0) == 0) out.push_back(line);
  return out;
}

}  // namespace

TEST_CASE("mpirun -np 2 with trainer.allreduce exact and T threads each trains the bit-identical model of one process with 2T threads",
          "[mpi]") {
  TempDir dir;
  const std::string train = head_of_data(dir, "data/train.jsonl", 300, "train.jsonl");
  const std::string dev = head_of_data(dir, "data/dev.jsonl", 80, "dev.jsonl");
  for (int threads : {1, 2}) {
    const std::string alone = dir.file("alone" + std::to_string(threads));
    const std::string job = dir.file("job" + std::to_string(threads));
    const RunResult a = run(han_cmd(train_args(train, dev, alone, 2 * threads)));
    const RunResult m = run(mpirun(2, train_args(train, dev, job, threads, " --set trainer.allreduce=exact")));
    INFO(m.err);
    REQUIRE(a.exit_code == 0);
    REQUIRE(m.exit_code == 0);
    CHECK(same_model(alone + "/model.han", job + "/model.han"));
    // Dev is scored in two halves, then summed: the same accuracy; the loss to ~1e-9 (each
    // rank's word input table is computed over its own half's words).
    const auto alone_scores = epoch_scores(alone), job_scores = epoch_scores(job);
    REQUIRE(alone_scores.size() == job_scores.size());
    for (std::size_t e = 0; e < alone_scores.size(); ++e) {
      CHECK(alone_scores[e].train_loss == job_scores[e].train_loss);
      CHECK(alone_scores[e].dev_accuracy == job_scores[e].dev_accuracy);
      CHECK(alone_scores[e].dev_loss == Approx(job_scores[e].dev_loss).epsilon(1e-6));
    }
    // Rank 0 alone prints the summary; at the info level, only rank 0 logs.
    REQUIRE(lines_of(m.out).size() == 1);
    CHECK(nlohmann::json::parse(m.out)["model"] == job + "/model.han");
    CHECK(lines_starting(m.err, "han: [rank 0/2] epoch 2/2").size() == 1);
    CHECK(lines_starting(m.err, "han: [rank 1/2]").empty());
    CHECK(lines_starting(m.err, "han: [rank 0/2] epoch 1: gradient exchange between 2 ranks").size() == 1);
  }
}

// Each document's probabilities, as han predict --format json gives them.
std::vector<double> probabilities(const std::string& model, const std::string& data) {
  const RunResult r = run(han_cmd("predict --model " + model + " --format json --data-format jsonl --top-k 2 " + data));
  REQUIRE(r.exit_code == 0);
  std::vector<double> out;
  for (const std::string& line : lines_of(r.out))
    for (const nlohmann::json& p : nlohmann::json::parse(line)["top_k"]) out.push_back(p["probability"].get<double>());
  return out;
}

// The largest difference between two lists of probabilities (of the same documents).
double largest_difference(const std::vector<double>& a, const std::vector<double>& b) {
  REQUIRE(a.size() == b.size());
  double largest = 0;
  for (std::size_t i = 0; i < a.size(); ++i) largest = std::max(largest, std::fabs(a[i] - b[i]));
  INFO("largest probability difference " << largest);
  return largest;
}

// Two jobs of `ranks` ranks x `threads` threads (mpirun `options`) give the same model, and
// its probabilities are within 1e-4 of one process with as many threads in all.
void check_job_agrees(int ranks, int threads, const std::string& options = "") {
  TempDir dir;
  const std::string train = head_of_data(dir, "data/train.jsonl", 300, "train.jsonl");
  const std::string dev = head_of_data(dir, "data/dev.jsonl", 80, "dev.jsonl");
  const std::string alone = dir.file("alone"), job = dir.file("job"), again = dir.file("again");
  REQUIRE(run(han_cmd(train_args(train, dev, alone, ranks * threads, " --quiet"))).exit_code == 0);
  for (const std::string& out : {job, again}) {
    const RunResult m = run(mpirun(ranks, train_args(train, dev, out, threads, " --quiet"), options));
    INFO(m.err);
    REQUIRE(m.exit_code == 0);
  }
  CHECK(same_model(job + "/model.han", again + "/model.han"));
  CHECK(largest_difference(probabilities(alone, dev), probabilities(job, dev)) <= 1e-4);
}

TEST_CASE("mpirun -np 2 with MPI's allreduce (the default): the same model run after run, within rounding of one process",
          "[mpi]") {
  // 2 threads per rank: the ranks' sums are added by MPI, not in one process's order.
  check_job_agrees(2, 2);
}

TEST_CASE("mpirun -np 2: the gradient summed while the backward pass runs gives the model summed after it",
          "[mpi]") {
  // Two ranks add the same two numbers whether the gradient goes in parts or whole: the
  // same bits. Each part is summed over a rank's 2 workers before it leaves.
  TempDir dir;
  const std::string train = head_of_data(dir, "data/train.jsonl", 300, "train.jsonl");
  const std::string dev = head_of_data(dir, "data/dev.jsonl", 80, "dev.jsonl");
  const std::string overlapped = dir.file("overlapped"), after = dir.file("after");
  const RunResult a = run(mpirun(2, train_args(train, dev, overlapped, 2)));
  const RunResult b = run(mpirun(2, train_args(train, dev, after, 2, " --set trainer.overlap=false")));
  INFO(a.err << b.err);
  REQUIRE(a.exit_code == 0);
  REQUIRE(b.exit_code == 0);
  CHECK(same_model(overlapped + "/model.han", after + "/model.han"));
  CHECK(lines_starting(a.err, "han: [rank 0/2] epoch 1: gradient exchange between 2 ranks").size() == 1);
  CHECK(a.err.find("beyond what the backward pass hid") != std::string::npos);
  CHECK(b.err.find("beyond what the backward pass hid") == std::string::npos);
}

TEST_CASE("mpirun: a rank that cannot read its data ends the job with one line naming it, nothing written",
          "[mpi]") {
  TempDir dir;
  const std::string train = head_of_data(dir, "data/train.jsonl", 100, "train.jsonl");
  const std::string out = dir.file("run");
  const RunResult r = run(mpirun_pair(train_args(train, "", out, 1),
                                      train_args(dir.file("missing.jsonl"), "", out, 1)));
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  const auto errors = lines_starting(r.err, "han: error");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0] == "han: error: rank 1: " + dir.file("missing.jsonl") + ": no such file");
  CHECK(han::run_files_held(out).empty());
}

// han links no MPI library: under mpirun it loads its module, libhan_mpi.so, from where
// cmake --install put it (relative to the executable), or from beside it (a build folder).
TEST_CASE("mpirun: an installed han finds its MPI module and trains, and a han without it says which files it tried",
          "[mpi][install]") {
  TempDir dir;
  const std::string train = head_of_data(dir, "data/train.jsonl", 60, "train.jsonl");
  const std::string build_dir = fs::path(han_binary()).parent_path().string();
  REQUIRE(run("cmake --install " + build_dir + " --prefix " + dir.file("prefix")).exit_code == 0);
  const std::string installed = dir.file("prefix/bin/han");
  const RunResult r = run(std::string(HAN_MPIEXEC) + " --oversubscribe --allow-run-as-root -np 2 " + installed + " " +
                          train_args(train, "", dir.file("run"), 1));
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(fs::exists(dir.file("run/model.han")));

  fs::create_directories(dir.file("alone"));
  fs::copy_file(han_binary(), dir.file("alone/han"));
  fs::permissions(dir.file("alone/han"), fs::perms::owner_all);
  const RunResult alone = run("OMPI_COMM_WORLD_SIZE=2 " + dir.file("alone/han") + " " +
                              train_args(train, "", dir.file("run2"), 1));
  CHECK(alone.exit_code == 2);
  CHECK(alone.err.rfind("han: error: han's mpi module libhan_mpi.so cannot be found: tried ", 0) == 0);
  CHECK(alone.err.find(dir.file("alone/libhan_mpi.so") + " (absent)") != std::string::npos);
  CHECK(std::count(alone.err.begin(), alone.err.end(), '\n') == 1);
  CHECK(!fs::exists(dir.file("run2/model.han")));
}

TEST_CASE("mpirun: ranks started with different configs are refused at start-up, naming the rank", "[mpi]") {
  TempDir dir;
  const std::string train = head_of_data(dir, "data/train.jsonl", 100, "train.jsonl");
  const std::string out = dir.file("run");
  const RunResult r =
      run(mpirun_pair(train_args(train, "", out, 1), train_args(train, "", out, 1, " --set trainer.seed=7")));
  INFO(r.err);
  CHECK(r.exit_code == 2);
  const auto errors = lines_starting(r.err, "han: error");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0] ==
        "han: error: rank 1's config differs from rank 0's: every rank must run the same han on the same config and "
        "data");
  CHECK(!fs::exists(out + "/model.han"));
}

TEST_CASE("mpirun: ranks that start from different parameters are refused before training", "[mpi]") {
  TempDir dir;
  const std::string train = head_of_data(dir, "data/train.jsonl", 100, "train.jsonl");
  const std::string out = dir.file("run");
  // The same path, other bytes: mpirun gives stdin to rank 0 alone (the others read nothing).
  std::string values;
  for (int i = 0; i < 16; ++i) values += " 0.5";
  const std::string vectors = "2 16\nthe" + values + "\nfilm" + values + "\n";
  const RunResult r = run(mpirun(2, train_args(train, "", out, 1, " --set model.embeddings=/dev/stdin")), vectors);
  INFO(r.err);
  CHECK(r.exit_code == 2);
  const auto errors = lines_starting(r.err, "han: error");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0] == "han: error: rank 1 starts from other parameters than rank 0 (its embeddings file differs): "
                     "every rank must read the same files");
  CHECK(!fs::exists(out + "/model.han"));
}

TEST_CASE("mpirun: a failure one rank meets alone in training aborts the job with one line naming it", "[mpi]") {
  TempDir dir;
  const std::string train = head_of_data(dir, "data/train.jsonl", 100, "train.jsonl");
  // A broken vectors file on rank 0's stdin; rank 1 reads nothing and waits for rank 0.
  const RunResult r = run("timeout 120 " + mpirun(2, train_args(train, "", dir.file("run"), 1,
                                                                  " --set model.embeddings=/dev/stdin")),
                          "2 16\nthe 0.5 zz\n");
  INFO(r.err);
  CHECK(r.exit_code == 2);  // MPI_Abort's code: not 124 (a hang)
  const auto errors = lines_starting(r.err, "han: error");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].rfind("han: error: rank 0: /dev/stdin: entry 1 of 2: ", 0) == 0);
}

TEST_CASE("mpirun: a rank killed with kill -9 ends the whole job (non-zero, the rank named), no hang", "[mpi]") {
  TempDir dir;
  const std::string train = head_of_data(dir, "data/train.jsonl", 1500, "train.jsonl");
  const std::string err = dir.file("err");
  // timeout's child is mpirun, whose children are the ranks: kill -9 the last one once
  // training has begun.
  const RunResult r = run("timeout 120 " + mpirun(2, train_args(train, "", dir.file("run"), 1, " --log-level debug")) +
                          " 2> " + err + " & pid=$!; for i in $(seq 1200); do grep -qF \"(step 3)\" " + err +
                          " && break; sleep 0.05; done; launcher=$(pgrep -P $pid); "
                          "kill -9 $(pgrep -P $launcher | tail -1); wait $pid; rc=$?; cat " + err + " >&2; exit $rc");
  INFO(r.err);
  CHECK(r.exit_code != 0);
  CHECK(r.exit_code != 124);  // (timeout: a hang)
  CHECK(lines_starting(r.err, "han: error").empty());
  const std::string launcher = fs::path(HAN_MPIEXEC).filename().string();
  const auto noticed = lines_starting(r.err, launcher + " noticed that process rank ");
  REQUIRE(noticed.size() == 1);
  CHECK(noticed[0].find("exited on signal 9 (Killed)") != std::string::npos);
}

TEST_CASE("mpirun: a rank that stops (SIGSTOP) ends the job after trainer.rank_timeout, rank 0 naming it", "[mpi]") {
  TempDir dir;
  const std::string train = head_of_data(dir, "data/train.jsonl", 300, "train.jsonl");
  const std::string err = dir.file("err");
  // Stop rank 1 (found by its OMPI_COMM_WORLD_RANK) once training has begun; epochs enough
  // that it is still training then, however loaded the machine.
  const RunResult r = run(
      "timeout 120 " +
      mpirun(2, train_args(train, "", dir.file("run"), 1,
                          " --log-level debug --set trainer.rank_timeout=3 --set trainer.epochs=200")) + " 2> " +
      err + " & pid=$!; for i in $(seq 1200); do grep -qF \"(step 3)\" " + err +
      " && break; sleep 0.05; done; launcher=$(pgrep -P $pid); "
      "for p in $(pgrep -P $launcher); do tr '\\0' '\\n' < /proc/$p/environ | grep -qx OMPI_COMM_WORLD_RANK=1 && "
      "stopped=$p && kill -STOP $p; done; wait $pid; rc=$?; kill -CONT $stopped 2>/dev/null; cat " + err +
      " >&2; exit $rc");
  INFO(r.err);
  CHECK(r.exit_code != 0);
  CHECK(r.exit_code != 124);  // (timeout: a hang)
  const auto named = lines_starting(r.err, "han: error: rank 0: rank 1 did not answer within 3 s");
  CHECK(named.size() == 1);
}

TEST_CASE("mpirun: SIGTERM leaves one checkpoint by rank 0 and --resume under mpirun reaches the uninterrupted model, and 1 or 4 ranks continue it too",
          "[mpi][signals]") {
  TempDir dir;
  const std::string train = head_of_data(dir, "data/train.jsonl", 1500, "train.jsonl");
  const std::string dev = head_of_data(dir, "data/dev.jsonl", 80, "dev.jsonl");
  const std::string whole = dir.file("whole"), job = dir.file("job"), err = dir.file("err");
  // Enough epochs (and no early stop) that the run is still going when the signal lands:
  // mpirun takes a while to pass it on, longer on a loaded machine.
  const std::string epochs = " --set trainer.epochs=10 --set trainer.patience=0";
  REQUIRE(run(mpirun(2, train_args(train, dev, whole, 1, epochs + " --quiet"))).exit_code == 0);
  // The signal goes once epoch 1's metrics are written: no debug log, so no rank writes
  // lines (--quiet) that mpirun could interleave with rank 0's one line about the checkpoint.
  const RunResult stopped =
      run(mpirun(2, train_args(train, dev, job, 1, epochs + " --quiet")) + " 2> " + err +
          " & pid=$!; for i in $(seq 1200); do [ -s " + job + "/metrics.jsonl ] && break; sleep 0.05; done; "
          "kill -TERM $pid; wait $pid; rc=$?; cat " + err + " >&2; exit $rc");
  INFO(stopped.err);
  CHECK(stopped.exit_code != 0);
  const auto interrupted = lines_starting(stopped.err, "han: interrupted");
  REQUIRE(interrupted.size() == 1);
  CHECK(interrupted[0] == "han: interrupted: checkpoint written to " + job +
                              "/checkpoint.han; continue with: han train --resume " + job);
  // Stopped in the first epoch, or after it (its best model and metrics then written too).
  const std::string held = han::run_files_held(job);
  CHECK((held == "checkpoint.han, config.json" || held == "checkpoint.han, config.json, metrics.jsonl, model.han"));
  const std::string one = dir.file("one"), four = dir.file("four");
  fs::copy(job, one, fs::copy_options::recursive);
  fs::copy(job, four, fs::copy_options::recursive);
  const RunResult resumed = run(mpirun(2, "train --resume " + job + " --quiet"));
  INFO(resumed.err);
  REQUIRE(resumed.exit_code == 0);
  // The same ranks share the data alike: the model of the uninterrupted job, bit for bit.
  CHECK(same_model(whole + "/model.han", job + "/model.han"));
  CHECK(!fs::exists(job + "/checkpoint.han"));
  // The checkpoint also continues in one process, or in 4 ranks (over loopback TCP): the
  // same batches, each cut another way, so the models agree within training's rounding.
  const RunResult alone = run(han_cmd("train --resume " + one + " --quiet"));
  const RunResult ranks4 = run(mpirun(4, "train --resume " + four + " --quiet", kOverTcp));
  INFO(alone.err << ranks4.err);
  REQUIRE(alone.exit_code == 0);
  REQUIRE(ranks4.exit_code == 0);
  for (const std::string& folder : {one, four}) {
    CHECK(epoch_scores(folder).size() == 10);
    CHECK(largest_difference(probabilities(whole + "/model.han", dev), probabilities(folder + "/model.han", dev)) <= 1e-3);
  }
}

TEST_CASE("mpirun -np 4 over loopback TCP: each rank trains on its share and the job agrees with one process",
          "[mpi]") {
  check_job_agrees(4, 1, kOverTcp);
}

#else

}  // namespace

TEST_CASE("a han built without MPI refuses to run as several ranks of mpirun", "[mpi]") {
  TempDir dir;
  const std::string train = head_of_data(dir, "data/train.jsonl", 50, "train.jsonl");
  const RunResult r = run("OMPI_COMM_WORLD_SIZE=2 " + han_cmd(train_args(train, "", dir.file("run"), 1)));
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "han: error: started as 2 ranks (mpirun), but this han was built without MPI (HAN_MPI=OFF): rebuild it with "
        "libopenmpi-dev installed, or run one han train\n");
  CHECK(!fs::exists(dir.file("run/model.han")));
}

#endif

TEST_CASE("every verb but train refuses to run as several ranks of mpirun, naming itself", "[mpi]") {
  for (const std::string verb : {"predict", "eval", "ablate", "embed", "info"}) {
    const RunResult r = run("OMPI_COMM_WORLD_SIZE=3 " + han_cmd(verb + " --model m.han"));
    INFO(verb);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err == "han: error: han " + verb +
                       " runs as one process, not as 3 ranks of mpirun (only han train is distributed; see docs/recipes.md "
                       "for sharding predict)\n");
  }
}
