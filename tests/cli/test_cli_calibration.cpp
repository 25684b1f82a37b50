// Calibration through the binary, as a user meets it: a model trained with a dev set
// stores its temperature (and a multi-label one its tuned thresholds, see
// test_cli_tasks.cpp); han info and han eval show them; predict --threshold abstains on a
// single-label model; trainer.calibrate=false leaves the model as models were before.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/cli_fixture.h"
#include "support/paths.h"
#include "support/run.h"

using namespace han::test;
using nlohmann::json;

namespace {

json run_json(const std::string& args, const std::string& input = "") {
  const RunResult r = run(han_cmd(args), input);
  INFO(args << "\n" << r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

// A failing command: exit 2 and one stderr line naming `what`.
void check_refused(const std::string& args, const std::string& what) {
  const RunResult r = run(han_cmd(args), "good film\n");
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(lines_of(r.err).size() == 1);
  CHECK(r.err.find(what) != std::string::npos);
}

std::string first_field(const std::string& line) { return line.substr(0, line.find('\t')); }

}  // namespace

TEST_CASE("a model trained with a dev set stores its temperature, and info and eval show it", "[cli][calibration]") {
  // The HAN alone, trained until it is overconfident: the linear member's own temperature
  // is fitted on dev and folded into it, so the fixture's blend is often calibrated
  // already and keeps temperature 1.
  const CliFixture& f = cli_fixture();
  TempDir tmp;
  const RunResult trained = run(han_cmd("train --config " + source_path("configs/quickstart.json") + " --output " +
                                        (tmp.path / "run").string() + " --set data.train=" + f.data +
                                        " --set trainer.epochs=3 --set model.embedding_dim=32 --set model.word_hidden=16"
                                        " --set model.sentence_hidden=16 --set model.attention_dim=32"
                                        " --set model.linear_member=false --quiet"));
  INFO(trained.err);
  REQUIRE(trained.exit_code == 0);
  const std::string model = (tmp.path / "run" / "model.han").string();
  const json summary = json::parse(lines_of(trained.out).at(0));
  INFO(summary.dump());
  const json& dev = summary["dev_calibration"];
  REQUIRE(dev.is_object());
  const double t = dev["temperature"].get<double>();
  CHECK(t != 1.0);
  CHECK(dev["nll_after"].get<double>() <= dev["nll_before"].get<double>());

  const json info = run_json("info --json --model " + model);
  CHECK(info["head"]["temperature"] == t);
  CHECK(info["calibration"] == dev);
  const std::string text = run(han_cmd("info --model " + model)).out;
  CHECK(text.find("single (temperature ") != std::string::npos);
  CHECK(text.find("on dev: ECE ") != std::string::npos);

  const std::string test = source_path("data/test.jsonl");
  const json e = run_json("eval --json --model " + model + " --data " + test);
  CHECK(e["calibration"]["temperature"] == t);
  for (const char* key : {"ece_before", "ece_after", "nll_before", "nll_after"}) {
    CAPTURE(key);
    CHECK(e["calibration"][key].get<double>() >= 0);
  }
  CHECK(e["accuracy"] == summary["test"]["accuracy"]);  // the argmax does not move
  const std::string eval_text = run(han_cmd("eval --model " + model + " --data " + test)).out;
  CHECK(eval_text.find("calibration: temperature ") != std::string::npos);
  CHECK(eval_text.find("(15 bins)") != std::string::npos);
}

TEST_CASE("eval --threshold reports coverage and the accuracy on the answered documents", "[cli][calibration]") {
  const CliFixture& f = cli_fixture();
  const std::string args = "eval --json --model " + f.model + " --data " + source_path("data/test.jsonl");
  const json all = run_json(args + " --threshold 0");
  CHECK(all["abstain"]["coverage"] == 1.0);
  CHECK(all["abstain"]["accuracy"] == all["accuracy"]);
  const json some = run_json(args + " --threshold 0.7");
  const std::int64_t answered = some["abstain"]["answered"];
  CHECK(some["abstain"]["documents"] == 1000);
  CHECK(some["abstain"]["coverage"].get<double>() == Approx(answered / 1000.0));
  CHECK(answered < 1000);
  // The confident documents are answered more accurately than all of them.
  if (answered > 0) CHECK(some["abstain"]["accuracy"].get<double>() >= all["accuracy"].get<double>());
  const std::string text = run(han_cmd("eval --threshold 0.7 --model " + f.model + " --data " +
                                       source_path("data/test.jsonl")))
                               .out;
  CHECK(text.find("abstaining below 0.7: coverage ") != std::string::npos);
}

TEST_CASE("predict --threshold answers the abstain label below it, --abstain-label names it", "[cli][calibration]") {
  const CliFixture& f = cli_fixture();
  std::string input;
  for (const std::string& line : lines_of(slurp(source_path("data/test.jsonl")))) {
    if (input.size() > 100000) break;
    input += json::parse(line)["text"].get<std::string>() + "\n";
  }
  const auto plain = lines_of(run(han_cmd("predict --format json --model " + f.model), input).out);
  const auto strict = lines_of(run(han_cmd("predict --threshold 0.7 --model " + f.model), input).out);
  const auto named = lines_of(run(han_cmd("predict --threshold 0.7 --abstain-label unsure --model " + f.model), input).out);
  REQUIRE(plain.size() == strict.size());
  REQUIRE(plain.size() == named.size());
  int abstained = 0;
  for (std::size_t i = 0; i < plain.size(); ++i) {
    const json answer = json::parse(plain[i]);
    CAPTURE(plain[i], strict[i]);
    const bool below = answer["probability"].get<double>() < 0.7;
    abstained += below ? 1 : 0;
    CHECK(first_field(strict[i]) == (below ? "__none__" : answer["label"].get<std::string>()));
    CHECK(first_field(named[i]) == (below ? "unsure" : answer["label"].get<std::string>()));
    // Then the top label and its probability: no probability stands beside the abstain label.
    const std::string ranking = strict[i].substr(strict[i].find('\t') + 1);
    CHECK(first_field(ranking) == answer["label"].get<std::string>());
    CHECK(std::stod(ranking.substr(ranking.find('\t') + 1)) == Approx(answer["probability"].get<double>()).margin(1e-4));
  }
  CHECK(abstained > 0);
  const json j = run_json("predict --format json --threshold 1 --abstain-label unsure --model " + f.model, "good\n");
  CHECK(j["label"] == "unsure");
  CHECK(j["abstained"] == true);
  CHECK(j["probability"].is_null());  // the abstain label has no probability
  CHECK(j["top_k"][0]["label"] != "unsure");  // the model's own ranking stays
  check_refused("predict --abstain-label pos --threshold 0.5 --model " + f.model, "--abstain-label: \"pos\" is one of");
  check_refused("predict --abstain-label unsure --model " + f.model, "--abstain-label: needs --threshold");
}

TEST_CASE("trainer.calibrate=false keeps the model as models were before calibration", "[cli][calibration]") {
  TempDir tmp;
  const auto all = lines_of(slurp(source_path("data/train.jsonl")));
  std::string small;
  for (std::size_t i = 0; i < 400; ++i) small += all[i] + "\n";
  const std::string data = (tmp.path / "small.jsonl").string();
  std::ofstream(data) << small;
  const std::string train = "train --config " + source_path("configs/quickstart.json") + " --set data.train=" +
                            data + " --set data.test= --set trainer.epochs=1 --set trainer.threads=2" +
                            " --set model.embedding_dim=16 --set model.word_hidden=8 --set model.sentence_hidden=8" +
                            " --set model.attention_dim=16 --output ";
  const std::string on = (tmp.path / "on").string(), off = (tmp.path / "off").string();
  const RunResult trained = run(han_cmd(train + on));
  INFO(trained.err);
  REQUIRE(trained.exit_code == 0);
  const json calibrated = json::parse(trained.out);
  const json plain = run_json(train + off + " --set trainer.calibrate=false");
  CHECK(plain["dev_calibration"].is_null());
  CHECK(calibrated["dev_calibration"].is_object());
  CHECK(trained.err.find("calibration on dev: temperature") != std::string::npos);
  const json info = run_json("info --json --model " + off + "/model.han");
  CHECK_FALSE(info.contains("head"));
  CHECK_FALSE(info.contains("calibration"));
  CHECK(info["config"]["trainer"]["calibrate"] == false);
  // At its default the key is left out of the stored config (older configs' fingerprints stay).
  CHECK_FALSE(run_json("info --json --model " + on + "/model.han")["config"]["trainer"].contains("calibrate"));
  // The same network: the calibrated model's probabilities without its temperature are
  // the plain model's, and both answer the same labels.
  const std::string dev = source_path("data/dev.jsonl");
  const json a = run_json("eval --json --model " + off + "/model.han --data " + dev);
  const json b = run_json("eval --json --model " + on + "/model.han --data " + dev);
  CHECK(a["calibration"]["temperature"] == 1.0);
  CHECK(a["calibration"]["ece_after"] == b["calibration"]["ece_before"]);
  CHECK(a["calibration"]["nll_after"] == b["calibration"]["nll_before"]);
  CHECK(a["accuracy"] == b["accuracy"]);
  CHECK(b["calibration"]["ece_after"].get<double>() == Approx(calibrated["dev_calibration"]["ece_after"].get<double>()));
}
