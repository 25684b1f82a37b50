// Ensembles as a user meets them: han train --seeds N (trainer.ensemble) writes one model
// file whose probabilities and attention weights are its members' mean; predict, eval,
// info and the html page read it; Ctrl-C keeps the finished members and --resume goes on.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/paths.h"
#include "support/run.h"
#include "support/small_model.h"
#include "support/signal_run.h"

using namespace han::test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

struct Data {
  std::string train, dev, test;
};

Data small_data(const TempDir& dir, std::size_t train_docs = 300) {
  return {head_of_data(dir, "data/train.jsonl", train_docs, "train.jsonl"),
          head_of_data(dir, "data/dev.jsonl", 60, "dev.jsonl"), head_of_data(dir, "data/test.jsonl", 60, "test.jsonl")};
}

// `han train` on the small data into `out`, a tiny model for `epochs` epochs.
std::string train_args(const Data& d, const std::string& out, const std::string& more, int epochs = 2) {
  return "train --config " + source_path("configs/quickstart.json") + " --set data.train=" + d.train +
         " --set data.dev=" + d.dev + " --set data.test=" + d.test + " --set trainer.epochs=" + std::to_string(epochs) +
         " --set trainer.patience=0" + kTinyModel + " --output " + out + more;
}

json train_ok(const std::string& args) {
  const RunResult r = run(han_cmd(args + " --quiet"));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

// predict --format json --top-k 2 --explain on `data`: one object per document.
std::vector<json> predictions(const std::string& model, const std::string& data) {
  const RunResult r =
      run(han_cmd("predict --model " + model + " --data-format jsonl --format json --top-k 2 --explain " + data));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::vector<json> out;
  for (const std::string& line : lines_of(r.out)) out.push_back(json::parse(line));
  return out;
}

std::map<std::string, double> probabilities(const json& row) {
  std::map<std::string, double> p;
  for (const json& k : row["top_k"]) p[k["label"]] = k["probability"];
  return p;
}

// Every attention weight of a prediction, sentences first, in reading order.
std::vector<double> attention_weights(const json& row) {
  std::vector<double> w;
  for (const json& s : row["attention"]["sentences"]) {
    w.push_back(s["weight"]);
    for (const json& word : s["words"]) w.push_back(word[1]);
  }
  return w;
}

}  // namespace

TEST_CASE("train --seeds 2: members equal to runs with those seeds, probabilities and attention their mean",
          "[cli][ensemble]") {
  const TempDir dir;
  const Data d = small_data(dir);
  // Without calibration on dev or the linear member, so that the runs alone and the
  // ensemble's probabilities are the networks' own (calibration: test_cli_calibration.cpp;
  // the member in an ensemble: test_cli_linear_member.cpp).
  const std::string han_only = " --set trainer.calibrate=false --set model.linear_member=false";
  const json summary = train_ok(train_args(d, dir.file("ens"), " --seeds 2" + han_only));
  const json one = train_ok(train_args(d, dir.file("seed1"), han_only));
  const json two = train_ok(train_args(d, dir.file("seed2"), " --set trainer.seed=2" + han_only));

  // Each member is exactly the model its seed trains alone (same config, data and threads).
  CHECK(slurp(dir.file("ens/members/1/model.han")) == slurp(dir.file("seed1/model.han")));
  CHECK(slurp(dir.file("ens/members/2/model.han")) == slurp(dir.file("seed2/model.han")));

  const auto ens = predictions(dir.file("ens/model.han"), d.dev);
  const auto a = predictions(dir.file("seed1/model.han"), d.dev);
  const auto b = predictions(dir.file("seed2/model.han"), d.dev);
  REQUIRE(ens.size() == 60);
  REQUIRE(a.size() == 60);
  REQUIRE(b.size() == 60);
  double members_differ = 0;
  for (std::size_t i = 0; i < ens.size(); ++i) {
    const auto pe = probabilities(ens[i]), pa = probabilities(a[i]), pb = probabilities(b[i]);
    REQUIRE(pe.size() == 2);
    for (const auto& [label, p] : pe) {
      CHECK(p == Approx((pa.at(label) + pb.at(label)) / 2).margin(1e-6));
      members_differ = std::max(members_differ, std::abs(pa.at(label) - pb.at(label)));
    }
    CHECK(ens[i]["attention"]["members"] == 2);
    const auto we = attention_weights(ens[i]), wa = attention_weights(a[i]), wb = attention_weights(b[i]);
    REQUIRE(we.size() == wa.size());
    REQUIRE(we.size() == wb.size());
    for (std::size_t k = 0; k < we.size(); ++k) CHECK(we[k] == Approx((wa[k] + wb[k]) / 2).margin(1e-6));
  }
  CHECK(members_differ > 1e-4);  // the seeds made different models: the mean is not trivially either

  // The summary: the ensemble's scores, and each member's as its own run reports them.
  CHECK(summary["ensemble"] == 2);
  REQUIRE(summary["members"].size() == 2);
  CHECK(summary["members"][0]["seed"] == 1);
  CHECK(summary["members"][1]["seed"] == 2);
  CHECK(summary["members"][0]["dev_accuracy"] == one["dev_accuracy"]);
  CHECK(summary["members"][1]["best_epoch"] == two["best_epoch"]);
  CHECK(summary["members"][1]["test"] == two["test"]);
  CHECK(summary["test"]["documents"] == 60);
  CHECK(summary["dev_accuracy"].is_number());
}

TEST_CASE("an ensemble is calibrated on its members' mean, each member as it is calibrated alone", "[cli][ensemble]") {
  const TempDir dir;
  const Data d = small_data(dir);
  // Without the linear member, whose ensemble keeps it out of the members' files (test_cli_linear_member.cpp).
  const std::string han_only = " --set model.linear_member=false";
  const json summary = train_ok(train_args(d, dir.file("ens"), " --seeds 2" + han_only));
  const json one = train_ok(train_args(d, dir.file("seed1"), han_only));
  CHECK(slurp(dir.file("ens/members/1/model.han")) == slurp(dir.file("seed1/model.han")));
  CHECK(summary["members"][0]["test"] == one["test"]);
  const json& dev = summary["dev_calibration"];
  INFO(summary.dump());
  REQUIRE(dev.is_object());
  const RunResult info = run(han_cmd("info --json --model " + dir.file("ens/model.han")));
  REQUIRE(info.exit_code == 0);
  const json head = json::parse(info.out)["head"];  // a temperature of 1 is left out (and a single head with it)
  CHECK((head.is_object() ? head.value("temperature", 1.0) : 1.0) == dev["temperature"]);
  CHECK(json::parse(info.out)["calibration"] == dev);
  // Its temperature divides the log of the mean: the answers keep the mean's argmax.
  const auto calibrated = predictions(dir.file("ens/model.han"), d.dev);
  const json plain = train_ok(train_args(d, dir.file("plain"), " --seeds 2 --set trainer.calibrate=false" + han_only));
  CHECK(plain["dev_calibration"].is_null());
  const auto mean = predictions(dir.file("plain/model.han"), d.dev);
  REQUIRE(calibrated.size() == mean.size());
  for (std::size_t i = 0; i < mean.size(); ++i) CHECK(calibrated[i]["label"] == mean[i]["label"]);
  const RunResult eval = run(han_cmd("eval --json --model " + dir.file("ens/model.han") + " --data " + d.dev));
  REQUIRE(eval.exit_code == 0);
  const json e = json::parse(eval.out)["calibration"];
  CHECK(e["nll_after"].get<double>() <= e["nll_before"].get<double>() + 1e-6);
}

TEST_CASE("an ensemble's metrics.jsonl, info, eval, html page and single-model tools", "[cli][ensemble]") {
  const TempDir dir;
  const Data d = small_data(dir);
  const std::string out = dir.file("ens");
  const json summary = train_ok(train_args(d, out, " --set trainer.ensemble=3 --set trainer.seed=5"));
  const std::string model = out + "/model.han";

  // metrics.jsonl: every member's 2 epochs, then a result line per member and the ensemble's.
  const auto lines = lines_of(slurp(out + "/metrics.jsonl"));
  REQUIRE(lines.size() == 3 * 2 + 3 + 1);
  CHECK(json::parse(lines[0])["member"] == 1);
  CHECK(json::parse(lines[0])["epoch"] == 1);
  CHECK(json::parse(lines[5])["member"] == 3);
  const json member3 = json::parse(lines[8]), ensemble = json::parse(lines[9]);
  CHECK(member3["result"] == "member");
  CHECK(member3["seed"] == 7);
  CHECK(member3["test"] == summary["members"][2]["test"]);
  CHECK(ensemble["result"] == "ensemble");
  CHECK(ensemble["members"] == 3);
  CHECK(ensemble["dev_accuracy"] == summary["dev_accuracy"]);
  CHECK(ensemble["test"] == summary["test"]);

  const RunResult info = run(han_cmd("info --model " + model + " --json"));
  REQUIRE(info.exit_code == 0);
  const json j = json::parse(info.out);
  CHECK(j["ensemble"] == 3);
  CHECK(j["format_version"] == 3);
  REQUIRE(j["trained"]["members"].size() == 3);
  CHECK(j["trained"]["members"][1]["seed"] == 6);
  CHECK(j["trained"]["members"][1]["best_epoch"] == summary["members"][1]["best_epoch"]);
  CHECK(j["trained"]["answers"]["dev_accuracy"] == summary["dev_accuracy"]);  // the ensemble as it answers
  const RunResult text = run(han_cmd("info --model " + model));
  CHECK(text.out.find("ensemble") != std::string::npos);
  CHECK(text.out.find("member 3") != std::string::npos);
  CHECK(text.out.find("seed 7, best epoch ") != std::string::npos);

  // --init from the ensemble: the run starts from its first member, and says so.
  const RunResult child = run(han_cmd(train_args(d, out + "-child", " --init " + out, 1)));
  INFO(child.err);
  CHECK(child.exit_code == 0);
  CHECK(child.err.find("init: " + out + " is an ensemble of 3: the run starts from its first member (seed 5), not the "
                       "others") != std::string::npos);

  // Batches of 32, as train's test scoring (quickstart's batch size).
  const RunResult eval = run(han_cmd("eval --json --batch-size 32 --model " + model + " --data " + d.test));
  INFO(eval.err);
  REQUIRE(eval.exit_code == 0);
  CHECK(json::parse(eval.out)["accuracy"] == Approx(summary["test"]["accuracy"].get<double>()));

  const RunResult html = run(han_cmd("predict --format html --model " + model + " " + d.test + " --data-format jsonl"));
  REQUIRE(html.exit_code == 0);
  CHECK(html.out.find("an ensemble of 3: its probabilities and its attention weights are the mean") !=
        std::string::npos);
  // A member is an ordinary model file.
  CHECK(run(han_cmd("info --model " + out + "/members/2/model.han")).out.find("ensemble") == std::string::npos);
}

TEST_CASE("Ctrl-C during an ensemble's second member: the first is kept, --resume ends as an uninterrupted run",
          "[cli][ensemble][signals]") {
  const TempDir dir;
  const Data d = small_data(dir, 1200);
  const std::string out = dir.file("ens");
  const std::string args = train_args(d, out, " --seeds 2", 3);
  const RunResult r = run_and_signal(args, "member 2/2 (seed 2): training", "INT", dir.file("err"));
  CHECK(r.exit_code == 130);
  CHECK(r.out.empty());
  CHECK(lines_of(r.err).back() == "han: interrupted: 1 of 2 members finished (kept in " + out +
                                      "/members); member 2's checkpoint written to " + out +
                                      "/members/2/checkpoint.han; continue with: han train --resume " + out);
  CHECK(fs::exists(out + "/members/1/model.han"));
  CHECK_FALSE(fs::exists(out + "/model.han"));
  const std::string kept = slurp(out + "/members/1/model.han");

  // A new run into the folder is refused as an interrupted one.
  const RunResult refused = run(han_cmd(args));
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find("an interrupted one: continue it with han train --resume " + out) != std::string::npos);

  const RunResult resumed = run(han_cmd("train --resume " + out));
  INFO(resumed.err);
  REQUIRE(resumed.exit_code == 0);
  CHECK(resumed.err.find("member 1/2 (seed 1): finished before, kept") != std::string::npos);
  CHECK(resumed.err.find("member 2/2 (seed 2): training") != std::string::npos);
  CHECK(slurp(out + "/members/1/model.han") == kept);
  CHECK(json::parse(resumed.out)["members"].size() == 2);
  train_ok(train_args(d, dir.file("straight"), " --seeds 2", 3));
  CHECK(slurp(out + "/model.han") == slurp(dir.file("straight/model.han")));
  CHECK(lines_of(slurp(out + "/metrics.jsonl")).size() == 2 * 3 + 3);
}
