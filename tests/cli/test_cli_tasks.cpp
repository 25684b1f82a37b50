// model.task multilabel and regression through the binary, as a user runs them: tiny sets
// (tests/tasks/, made by make_tasks.py) learned end to end, beating a constant answer;
// what train, eval, predict and info print for each task; class weights on the command line;
// han ablate comparing masks by each task's main score.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>
#include <nlohmann/json.hpp>

#include "han/core/number_text.h"
#include "han/infer/classifier.h"
#include "support/cli_fixture.h"
#include "support/paths.h"
#include "support/run.h"

using namespace han::test;
using nlohmann::json;

namespace {

// A small, fast model over one of the tiny task sets.
std::string task_config(const TempDir& tmp, const std::string& set, const std::string& task,
                        const std::string& data_keys = "") {
  const std::string base = source_path("tests/tasks/" + set);
  const std::filesystem::path cfg = tmp.path / (set + ".json");
  std::ofstream(cfg) << R"({"data": {"train": ")" << base << R"(_train.jsonl", "dev": ")" << base
                     << R"(_dev.jsonl", "test": ")" << base << R"(_test.jsonl")" << data_keys << R"(},
    "tokenizer": {"min_count": 1},
    "model": {"embedding_dim": 32, "word_hidden": 16, "sentence_hidden": 16, "attention_dim": 32, "task": ")"
                     << task << R"("},
    "batching": {"batch_size": 16}, "optimizer": {"lr": 0.01},
    "trainer": {"epochs": 8, "patience": 3, "seed": 1, "threads": 2}})";
  return cfg.string();
}

std::vector<json> records(const std::string& path) {
  std::vector<json> out;
  for (const std::string& line : lines_of(slurp(path))) out.push_back(json::parse(line));
  return out;
}

json train_summary(const std::string& config, const std::string& output) {
  const RunResult r = run(han_cmd("train --quiet --config " + config + " --output " + output));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

// Micro-F1 of always answering the test set's most frequent label.
double constant_micro_f1(const std::vector<json>& test) {
  std::map<std::string, int> count;
  int gold = 0;
  for (const json& r : test)
    for (const auto& l : r["labels"]) ++count[l.get<std::string>()], ++gold;
  int best = 0;
  for (const auto& [label, n] : count) best = std::max(best, n);
  return 2.0 * best / (static_cast<double>(test.size()) + gold);
}

// han ablate over one of the task sets: none vs renorm, bucketed, `seeds` seeds, 3 epochs.
std::string ablate_command(const std::string& config, const std::string& output, int seeds) {
  return han_cmd("ablate --config " + config + " --output " + output + " --seeds " + std::to_string(seeds) +
                 " --masks none,renorm --batching bucket --set trainer.epochs=3");
}

// The ablation's variant with this mask.
json variant_of(const json& ablation, const std::string& mask) {
  for (const json& v : ablation["variants"])
    if (v["mask"] == mask) return v;
  FAIL("no variant " << mask);
  return nullptr;
}

// han train on the same config as the ablation's renorm run of seed 1 (its metrics.jsonl is
// in `output`), without the linear member as the ablation's models are. A multi-label
// variant is calibrated on dev as han train calibrates (`calibrate`: its thresholds tuned);
// other tasks' are not (a temperature changes no single-label answer).
json renorm_run(const std::string& config, const std::string& output, bool calibrate = false) {
  const RunResult r = run(han_cmd("train --quiet --config " + config + " --output " + output +
                                  " --set trainer.epochs=3 --set model.mask=renorm --set batching.strategy=bucket"
                                  " --set trainer.calibrate=" + (calibrate ? "true" : "false") +
                                  " --set model.linear_member=false"));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

// The renorm variant's first seed is han train's run: the same test score (batched
// differently: renorm is batch-invariant to float rounding) and, epoch by epoch, the same
// dev score `dev_key` in metrics.jsonl.
void check_scores_are_the_tasks(const json& renorm, const std::string& score, const json& summary,
                                const std::string& run_dir) {
  INFO(renorm.dump() << "\n" << summary.dump());
  CHECK(renorm[score]["values"][0].get<double>() == Approx(summary["test"][score].get<double>()).epsilon(1e-4));
  const std::vector<std::string> epochs = lines_of(slurp(run_dir + "/metrics.jsonl"));
  REQUIRE(renorm["dev_curve"][0].size() == epochs.size());
  for (std::size_t e = 0; e < epochs.size(); ++e)
    CHECK(renorm["dev_curve"][0][e].get<double>() == Approx(json::parse(epochs[e])["dev_" + score].get<double>()));
}

// none against renorm, seed by seed: the difference is none - renorm, and a win is a seed
// where none's score is better (lower when lower_is_better). Returns the seeds that tie.
int check_paired(const json& none, const json& renorm, const std::string& score, bool lower_is_better) {
  const json a = none[score]["values"], b = renorm[score]["values"];
  REQUIRE(a.size() == b.size());
  int wins = 0, ties = 0;
  double diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    wins += lower_is_better ? a[i] < b[i] : a[i] > b[i];
    ties += a[i] == b[i];
    diff += (a[i].get<double>() - b[i].get<double>()) / static_cast<double>(a.size());
  }
  const json& vs = none["vs_renorm"];
  INFO(none.dump() << "\n" << renorm.dump());
  CHECK(vs["wins"] == wins);
  CHECK(vs["ties"] == ties);
  CHECK(vs["mean_diff"].get<double>() == Approx(diff));
  REQUIRE(vs["ci95"].size() == 2);
  CHECK(vs["ci95"][0].get<double>() <= diff);
  CHECK(vs["ci95"][1].get<double>() >= diff);
  return ties;
}

}  // namespace

TEST_CASE("multilabel: a tiny set learned end to end, answered as label sets by eval, predict and info",
          "[cli][tasks]") {
  TempDir tmp;
  const std::string run_dir = (tmp.path / "run").string(), model = run_dir + "/model.han";
  const json summary = train_summary(task_config(tmp, "multilabel", "multilabel"), run_dir);
  const std::vector<json> test = records(source_path("tests/tasks/multilabel_test.jsonl"));
  const double constant = constant_micro_f1(test);
  INFO(summary.dump() << " constant micro-F1 " << constant);
  CHECK(summary["test"]["micro_f1"].get<double>() > constant + 0.2);
  CHECK(summary["dev_micro_f1"].get<double>() > constant + 0.2);
  const json epoch = json::parse(lines_of(slurp(run_dir + "/metrics.jsonl")).front());
  for (const char* key : {"dev_micro_f1", "dev_macro_f1", "dev_subset_accuracy", "dev_hamming_loss",
                          "dev_precision_at_1", "dev_recall_at_1", "dev_loss"})
    CHECK(epoch.contains(key));

  const RunResult eval = run(han_cmd("eval --format json --model " + model + " --data " +
                                     source_path("tests/tasks/multilabel_test.jsonl")));
  REQUIRE(eval.exit_code == 0);
  const json e = json::parse(eval.out);
  CHECK(e["task"] == "multilabel");
  CHECK(e["micro_f1"] == summary["test"]["micro_f1"]);
  CHECK(e["per_label"]["sport"]["support"].get<int>() > 0);
  CHECK(run(han_cmd("eval --model " + model + " --data " + source_path("tests/tasks/multilabel_test.jsonl")))
            .out.find("Hamming loss") != std::string::npos);

  // Two topics in one document: both labels, each with its probability.
  const std::string doc = "goal match team score coach league. recipe bread cheese soup oven sauce.\n";
  const RunResult tsv = run(han_cmd("predict --model " + model), doc);
  REQUIRE(tsv.exit_code == 0);
  const std::vector<std::string> fields = [&] {
    std::vector<std::string> f;
    std::stringstream ss(lines_of(tsv.out).at(0));
    for (std::string x; std::getline(ss, x, '\t');) f.push_back(x);
    return f;
  }();
  REQUIRE(fields.size() == 2);
  CHECK((fields[0] == "sport,food" || fields[0] == "food,sport"));
  const json answer = json::parse(run(han_cmd("predict --format json --explain --model " + model), doc).out);
  REQUIRE(answer["labels"].size() == 2);
  for (const json& l : answer["labels"]) CHECK(l["probability"].get<double>() >= 0.5);
  CHECK(answer["attention"]["sentences"].size() == 2);
  // The member's side explains the first label the row answers.
  CHECK(answer["linear_member"]["label"] == answer["labels"][0]["label"]);
  {
    // A threshold no probability reaches on that label: the row answers the other one first,
    // and the member's side explains that one.
    han::Classifier strict_top = han::load_classifier(model);
    const auto at = std::find(strict_top.labels.begin(), strict_top.labels.end(), answer["labels"][0]["label"]);
    strict_top.head.thresholds[static_cast<std::size_t>(at - strict_top.labels.begin())] = 1.0;
    const std::string edited = (tmp.path / "edited.han").string();
    han::save_classifier(edited, strict_top);
    const json other = json::parse(run(han_cmd("predict --format json --explain --model " + edited), doc).out);
    REQUIRE(other["labels"].size() == 1);
    CHECK(other["labels"][0]["label"] == answer["labels"][1]["label"]);
    CHECK(other["linear_member"]["label"] == other["labels"][0]["label"]);
    // Another label's side: its own weights on the same features.
    CHECK(other["linear_member"]["words"] != answer["linear_member"]["words"]);
  }
  // -k caps the labels answered at the K most probable; without it, every label reaching its threshold.
  const json capped = json::parse(run(han_cmd("predict --format json -k 1 --model " + model), doc).out);
  REQUIRE(capped["labels"].size() == 1);
  const json& top = answer["labels"][0]["probability"] >= answer["labels"][1]["probability"] ? answer["labels"][0]
                                                                                              : answer["labels"][1];
  CHECK(capped["labels"][0]["label"] == top["label"]);
  CHECK(lines_of(run(han_cmd("predict -k 1 --model " + model), doc).out).at(0).find(',') == std::string::npos);
  CHECK(json::parse(run(han_cmd("predict --format json -k 3 --model " + model), doc).out)["labels"] == answer["labels"]);
  // --threshold: one threshold for every label; a document always gets its top label.
  const json strict = json::parse(run(han_cmd("predict --format json --threshold 1 --model " + model), doc).out);
  CHECK(strict["labels"].size() == 1);
  CHECK(run(han_cmd("predict --format html --model " + model), doc).out.find("sport") != std::string::npos);
  CHECK(run(han_cmd("info --model " + model)).out.find("multilabel (thresholds ") != std::string::npos);

  // Calibrated on dev: a temperature and thresholds tuned per label, reported against 0.5.
  const json& dev = summary["dev_calibration"];
  INFO(dev.dump());
  REQUIRE(dev.is_object());
  for (const char* key : {"temperature", "ece_before", "ece_after", "micro_f1_untuned", "micro_f1_tuned"})
    CHECK(dev[key].is_number());
  const json info = json::parse(run(han_cmd("info --json --model " + model)).out);
  CHECK(info["head"]["temperature"] == dev["temperature"]);
  REQUIRE(info["head"]["thresholds"].size() == 4);
  // Each label's threshold, by name, in json and in the text's thresholds row.
  REQUIRE(info["thresholds"].size() == 4);
  const std::string info_text = run(han_cmd("info --model " + model)).out;
  for (std::size_t k = 0; k < 4; ++k) {
    const std::string label = info["labels"][k];
    CHECK(info["thresholds"][label] == info["head"]["thresholds"][k]);
    CHECK_THAT(info_text, Catch::Contains(label + " "));
  }
  CHECK_THAT(info_text, Catch::Contains("\nthresholds "));
  // --threshold P sets every label's threshold in eval too.
  const json at_half = json::parse(run(han_cmd("eval --format json --threshold 0.5 --model " + model + " --data " +
                                               source_path("tests/tasks/multilabel_test.jsonl")))
                                       .out);
  CHECK(at_half["calibration"]["temperature"] == dev["temperature"]);
  CHECK(at_half["micro_f1"].is_number());
  CHECK(at_half["threshold"] == 0.5);  // the report says what it was scored at
  const RunResult text = run(han_cmd("eval --threshold 0.5 --model " + model + " --data " +
                                     source_path("tests/tasks/multilabel_test.jsonl")));
  CHECK_THAT(text.out, Catch::Contains("threshold: 0.5 for every label (--threshold; the model's own are not used)"));
}

TEST_CASE("regression: a tiny rating set learned end to end, and predict prints the number", "[cli][tasks]") {
  TempDir tmp;
  const std::string run_dir = (tmp.path / "run").string(), model = run_dir + "/model.han";
  const std::string cfg = task_config(tmp, "regression", "regression", R"(, "target_key": "rating")");
  const json summary = train_summary(cfg, run_dir);
  const std::vector<json> test = records(source_path("tests/tasks/regression_test.jsonl"));
  double mean = 0, squares = 0;
  for (const json& r : test) mean += r["rating"].get<double>() / static_cast<double>(test.size());
  for (const json& r : test) squares += std::pow(r["rating"].get<double>() - mean, 2);
  const double sd = std::sqrt(squares / static_cast<double>(test.size()));  // the best constant's RMSE
  INFO(summary.dump() << " sd " << sd);
  CHECK(summary["test"]["rmse"].get<double>() < 0.75 * sd);
  CHECK(summary["test"]["pearson"].get<double>() > 0.6);
  // The best epoch is the one with the lowest dev RMSE (trainer.select auto).
  double best_rmse = 1e9, chosen = -1;
  for (const std::string& line : lines_of(slurp(run_dir + "/metrics.jsonl"))) {
    const json m = json::parse(line);
    best_rmse = std::min(best_rmse, m["dev_rmse"].get<double>());
    if (m["best"].get<bool>()) chosen = m["dev_rmse"].get<double>();
  }
  CHECK(chosen == best_rmse);

  const RunResult eval = run(han_cmd("eval --format json --model " + model + " --data " +
                                     source_path("tests/tasks/regression_test.jsonl")));
  REQUIRE(eval.exit_code == 0);
  const json e = json::parse(eval.out);
  for (const char* key : {"rmse", "mae", "pearson", "spearman", "rounded_accuracy"}) CHECK(e.contains(key));
  CHECK(e["rmse"].get<double>() == Approx(summary["test"]["rmse"].get<double>()).epsilon(1e-5));  // other batches
  const RunResult predict = run(han_cmd("predict --model " + model),
                                "superb wonderful brilliant great film. great charming moving music.\n"
                                "awful boring dull tedious plot. clumsy weak tedious acting.\n");
  REQUIRE(predict.exit_code == 0);
  const auto lines = lines_of(predict.out);
  REQUIRE(lines.size() == 2);
  CHECK(std::stod(lines[0]) > std::stod(lines[1]) + 1);
  const json j = json::parse(run(han_cmd("predict --format json --explain --model " + model), "great. dull.\n").out);
  CHECK(j["value"].is_number());
  CHECK(j["attention"]["sentences"].size() == 2);
  // The linear member's side, in target units: the value is the parts' values blended by its share.
  const json& m = j.at("linear_member");
  const double share = m.at("share").get<double>();
  CHECK(j["value"].get<double>() ==
        Approx((1 - share) * m.at("han_value").get<double>() + share * m.at("member_value").get<double>()).epsilon(1e-5));
  CHECK_FALSE(m.contains("label"));
  REQUIRE(m.at("words").size() >= 2);
  CHECK(m["words"][0][0].is_string());
  const RunResult page = run(han_cmd("predict --format html --model " + model), "great.\n");
  CHECK(page.exit_code == 0);
  CHECK(page.out.find("predicted</span>") != std::string::npos);
  const json info = json::parse(run(han_cmd("info --json --model " + model)).out);
  CHECK(info["task"] == "regression");
  CHECK(info["head"]["target_mean"].get<double>() > 1);
  CHECK(info["head"]["seen_targets"] == json{1, 2, 3, 4, 5});
  const std::string info_text = run(han_cmd("info --model " + model)).out;
  CHECK_THAT(info_text, Catch::Matches("(.|\\n)*\\ntask +regression \\(target mean (.|\\n)*"));
  CHECK_THAT(info_text, !Catch::Contains("labels ("));  // it answers a number
  // The dev RMSE of the model as it answers (the HAN and its linear member): the summary's.
  CHECK_THAT(info_text, Catch::Contains("\ndev, as it answers   dev RMSE " +
                                        han::format_fixed(summary["dev_rmse"].get<double>(), 4) + ", dev MAE "));
  CHECK(info["trained"]["answers"]["dev_rmse"].get<double>() == Approx(summary["dev_rmse"].get<double>()));
  // One unit for every loss: the training loss's, on targets standardised by the training
  // set's sd. Dev and test losses are the squared error in those units, for the HAN alone
  // (each epoch), the linear member and the blend.
  const double train_sd = info["head"]["target_sd"].get<double>();
  auto standardised_mse = [&](const json& rmse) { return std::pow(rmse.get<double>() / train_sd, 2); };
  for (const std::string& line : lines_of(slurp(run_dir + "/metrics.jsonl"))) {
    const json m = json::parse(line);
    CHECK(m["dev_loss"].get<double>() == Approx(standardised_mse(m["dev_rmse"])).epsilon(1e-6));
  }
  CHECK(summary["dev_loss"].get<double>() == Approx(standardised_mse(summary["dev_rmse"])).epsilon(1e-6));
  CHECK(summary["test"]["loss"].get<double>() == Approx(standardised_mse(summary["test"]["rmse"])).epsilon(1e-6));
  CHECK(e["loss"].get<double>() == Approx(standardised_mse(e["rmse"])).epsilon(1e-5));
  const double member = summary["linear_member"]["dev_loss"].get<double>(), blend = summary["dev_loss"].get<double>();
  CHECK(member > 0.5 * blend);  // both in one unit: the member alone a little worse than the blend,
  CHECK(member < 3 * blend);    // not apart by the targets' variance
  CHECK(run(han_cmd("train --config " + cfg + " --output " + run_dir + "2 --set trainer.epochs=1")).err.find(
            "targets of mean 2.99 and sd 1.404 (losses are on standardised targets, (target - mean) / sd; RMSE and MAE "
            "are in target units)") != std::string::npos);
  const RunResult top_k = run(han_cmd("predict -k 2 --model " + model), "x\n");
  CHECK(top_k.exit_code == 2);
  CHECK(top_k.err == "han: error: --top-k: a regression model answers one number; " + model +
                         " is a regression model\n");
  const RunResult threshold = run(han_cmd("predict --threshold 0.3 --model " + model), "x\n");
  CHECK(threshold.exit_code == 2);
  CHECK(threshold.err.find("--threshold: applies to single-label and multi-label models") != std::string::npos);
}

TEST_CASE("loss.class_weights from the command line: kept in config.json, an unknown label named", "[cli][tasks]") {
  const CliFixture& f = cli_fixture();
  TempDir tmp;
  const std::string cfg = source_path("configs/quickstart.json");
  const std::string base = "train --quiet --config " + cfg + " --set data.train=" + f.data +
                           " --set data.dev= --set data.test= --set trainer.epochs=1 --set model.embedding_dim=8"
                           " --set model.word_hidden=4 --set model.sentence_hidden=4 --set model.attention_dim=8";
  const RunResult ok = run(han_cmd(base + " --set loss.class_weights=\"{\\\"pos\\\":2}\" --output " + (tmp.path / "a").string()));
  INFO(ok.err);
  REQUIRE(ok.exit_code == 0);
  CHECK(json::parse(slurp(tmp.path / "a" / "config.json"))["loss"]["class_weights"] == json{{"pos", 2}});
  // The weights computed by balanced are logged (without --quiet).
  std::string loud = base;
  loud.replace(loud.find(" --quiet"), 8, "");
  const RunResult balanced = run(han_cmd(loud + " --set loss.class_weights=balanced --output " + (tmp.path / "d").string()));
  REQUIRE(balanced.exit_code == 0);
  CHECK_THAT(balanced.err, Catch::Matches("(.|\\n)*han: class weights \\(loss.class_weights balanced\\): \"neg\" [0-9.]+, \"pos\" [0-9.]+\\n(.|\\n)*"));
  const RunResult bad = run(han_cmd(base + " --set loss.class_weights=\"{\\\"spam\\\":2}\" --output " + (tmp.path / "b").string()));
  CHECK(bad.exit_code == 2);
  // Found once the data is read, and still blamed on the --set that gave the key.
  CHECK(bad.err == "han: error: --set loss.class_weights={\"spam\":2}: loss.class_weights: \"spam\" is not one of the 2 "
                   "labels of data.train\n");
  CHECK_FALSE(std::filesystem::exists(tmp.path / "b"));
  const RunResult wrong_task = run(han_cmd(base + " --set loss.class_weights=balanced --set model.task=multilabel"
                                                  " --output " + (tmp.path / "c").string()));
  CHECK(wrong_task.exit_code == 2);
  CHECK(wrong_task.err.find("--set loss.class_weights=balanced: loss.class_weights: applies to model.task single only") !=
        std::string::npos);
}

TEST_CASE("ablate a multilabel model: micro-F1 in the table, the intervals and the report", "[cli][tasks][ablate]") {
  TempDir tmp;
  const std::string config = task_config(tmp, "multilabel", "multilabel"), out = (tmp.path / "ablate").string();
  const RunResult r = run(ablate_command(config, out, 3));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string header = lines_of(r.out).at(0);
  CHECK(header.find("micro-F1 (test)") != std::string::npos);
  CHECK(header.find("Δmicro-F1 vs renorm") != std::string::npos);
  CHECK(header.find("acc") == std::string::npos);
  const json a = json::parse(slurp(out + "/ablation.json"));
  REQUIRE(a["variants"].size() == 2);
  for (const json& v : a["variants"]) {
    CHECK(v["task"] == "multilabel");
    CHECK(v["micro_f1"]["values"].size() == 3);
    CHECK(v.contains("dev_micro_f1"));
    CHECK_FALSE(v.contains("accuracy"));
  }
  const json none = variant_of(a, "none"), renorm = variant_of(a, "renorm");
  CHECK(none["vs_renorm"].contains("macro_f1_ci95"));
  check_paired(none, renorm, "micro_f1", false);
  const std::string run_dir = (tmp.path / "train").string();
  // Its thresholds tuned on dev, as han train tunes them: the same test micro-F1 as han train's.
  const json trained = renorm_run(config, run_dir, true);
  check_scores_are_the_tasks(renorm, "micro_f1", trained, run_dir);
  CHECK(renorm["dev_micro_f1"]["values"][0].get<double>() ==
        Approx(trained["dev_calibration"]["micro_f1_tuned"].get<double>()).epsilon(1e-4));
  CHECK(trained["dev_calibration"]["micro_f1_tuned"].get<double>() != trained["dev_calibration"]["micro_f1_untuned"].get<double>());
  CHECK_THAT(r.out, Catch::Contains("each variant's label thresholds and temperature are fitted on dev as han train"));
  const std::string html = slurp(out + "/report.html");
  CHECK(html.find("<th>micro-F1 (test)</th>") != std::string::npos);
  CHECK(html.find("dev micro-F1 (mean over seeds)") != std::string::npos);
  for (const json& doc : a["example_documents"]) CHECK(html.find("(gold: " + doc["gold"].get<std::string>()) != std::string::npos);
}

TEST_CASE("ablate a regression model: RMSE, lower is better, and an interrupted ablation resumes",
          "[cli][tasks][ablate]") {
  TempDir tmp;
  const std::string config = task_config(tmp, "regression", "regression", R"(, "target_key": "rating")");
  const std::string out = (tmp.path / "ablate").string(), cmd = ablate_command(config, out, 3);
  const RunResult r = run(cmd);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string header = lines_of(r.out).at(0);
  for (const char* column : {"RMSE (test)", "MAE", "ΔRMSE vs renorm", "wins (lower)"})
    CHECK(header.find(column) != std::string::npos);
  const json a = json::parse(slurp(out + "/ablation.json"));
  const json none = variant_of(a, "none"), renorm = variant_of(a, "renorm");
  CHECK(none["task"] == "regression");
  CHECK(none["vs_renorm"].contains("mae_mean_diff"));
  // Three seeds without a tie: wins counted the wrong way round would differ.
  CHECK(check_paired(none, renorm, "rmse", true) == 0);
  CHECK(none["invariance_error"].get<double>() > 1e-4);  // the predicted number moves with its company
  CHECK(renorm["invariance_error"].get<double>() < 1e-3);
  const std::string run_dir = (tmp.path / "train").string();
  check_scores_are_the_tasks(renorm, "rmse", renorm_run(config, run_dir), run_dir);
  CHECK(slurp(out + "/report.html").find("a lower RMSE") != std::string::npos);
  const std::vector<std::string> markdown = lines_of(slurp(out + "/report.md"));
  REQUIRE(markdown.size() > 5);
  CHECK(markdown[4].empty());  // header, rule, none, renorm; then the verdict
  CHECK(markdown[5] == "**Verdict**");
  CHECK(markdown[0].rfind("| mask | batching | RMSE (test) | MAE | ΔRMSE vs renorm [95% CI] | wins (lower) |", 0) == 0);

  // A run lost (as when the ablation was stopped during it) is trained again; the others are
  // re-used, and the figures come out the same.
  std::filesystem::remove(out + "/runs/none-bucket-seed2.json");
  const RunResult again = run(cmd);
  INFO(again.err);
  REQUIRE(again.exit_code == 0);
  CHECK(again.err.find("training none-bucket-seed2") != std::string::npos);
  CHECK(again.err.find("re-using " + out + "/runs/renorm-bucket-seed1.json") != std::string::npos);
  CHECK(again.err.find("training renorm") == std::string::npos);
  json resumed = json::parse(slurp(out + "/ablation.json")), first = a;
  for (json* j : {&resumed, &first})
    for (json& v : (*j)["variants"]) v.erase("seconds_per_epoch");  // wall clock
  CHECK(resumed == first);
}

namespace {

// predict --format json on the test set of `set`: each document's answer per label
// (multilabel, with --threshold 0 so every label is listed) or its number (regression).
std::vector<std::map<std::string, double>> answers(const std::string& model, const std::string& set) {
  const std::string threshold = set == "multilabel" ? " --threshold 0" : "";
  const RunResult r = run(han_cmd("predict --format json --data-format jsonl" + threshold + " --model " + model + " " +
                                  source_path("tests/tasks/" + set + "_test.jsonl")));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::vector<std::map<std::string, double>> out;
  for (const std::string& line : lines_of(r.out)) {
    const json j = json::parse(line);
    std::map<std::string, double> a;
    if (j.contains("value")) a["value"] = j["value"];
    for (const json& l : j.value("labels", json::array())) a[l["label"]] = l["probability"];
    out.push_back(a);
  }
  return out;
}

}  // namespace

TEST_CASE("multilabel and regression ensembles: --seeds 2 answers its members' mean, scored by the task",
          "[cli][tasks][ensemble]") {
  for (const auto& [set, task, keys] : {std::tuple<std::string, std::string, std::string>{"multilabel", "multilabel", ""},
                                        {"regression", "regression", R"(, "target_key": "rating")"}}) {
    INFO(task);
    TempDir tmp;
    const std::string cfg = task_config(tmp, set, task, keys), out = (tmp.path / "ens").string();
    // HAN members alone: the linear member in an ensemble is test_cli_linear_member.cpp's.
    const std::string quick = " --set trainer.epochs=3 --set trainer.calibrate=false --set model.linear_member=false";
    const auto train = [&](const std::string& dir, const std::string& more) {
      const RunResult r = run(han_cmd("train --quiet --config " + cfg + " --output " + dir + quick + more));
      INFO(r.err);
      REQUIRE(r.exit_code == 0);
      return json::parse(r.out);
    };
    const json ens = train(out, " --seeds 2");
    const json one = train((tmp.path / "one").string(), "");
    train((tmp.path / "two").string(), " --set trainer.seed=2");
    const std::string main_score = task == "multilabel" ? "dev_micro_f1" : "dev_rmse";
    CHECK(ens[main_score].is_number());
    CHECK(ens["members"][0][main_score] == one[main_score]);
    CHECK(ens["test"][task == "multilabel" ? "micro_f1" : "rmse"].is_number());
    const auto e = answers(out + "/model.han", set), a = answers((tmp.path / "one/model.han").string(), set),
               b = answers((tmp.path / "two/model.han").string(), set);
    REQUIRE(e.size() == a.size());
    REQUIRE(e.size() == b.size());
    double members_differ = 0;
    for (std::size_t i = 0; i < e.size(); ++i) {
      REQUIRE(e[i].size() == (task == "multilabel" ? 4u : 1u));
      for (const auto& [key, value] : e[i]) {
        CHECK(value == Approx((a[i].at(key) + b[i].at(key)) / 2).margin(1e-5));
        members_differ = std::max(members_differ, std::abs(a[i].at(key) - b[i].at(key)));
      }
    }
    CHECK(members_differ > 1e-3);
    const RunResult info = run(han_cmd("info --model " + out + "/model.han"));
    CHECK(info.out.find(task == "multilabel" ? "dev micro-F1 " : "dev RMSE ") != std::string::npos);
    if (task == "multilabel") {  // calibrated: a temperature on the members' mean, thresholds per label
      const json calibrated = train((tmp.path / "cal").string(), " --seeds 2 --set trainer.calibrate=true");
      CHECK(calibrated["dev_calibration"]["temperature"].is_number());
      const json head = json::parse(run(han_cmd("info --json --model " + (tmp.path / "cal/model.han").string())).out)["head"];
      CHECK(head["thresholds"].size() == 4);
    }
  }
}

TEST_CASE("train --init trains multilabel and regression models further, or a model of another task for a new one",
          "[cli][tasks][init]") {
  TempDir tmp;
  const std::string ml_cfg = task_config(tmp, "multilabel", "multilabel");
  const std::string rg_cfg = task_config(tmp, "regression", "regression", R"(, "target_key": "rating")");
  const auto train = [&](const std::string& cfg, const std::string& dir, const std::string& more) {
    const RunResult r = run(han_cmd("train --config " + cfg + " --output " + (tmp.path / dir).string() +
                                    " --set trainer.epochs=2" + more));
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return r;
  };
  train(ml_cfg, "ml", "");
  const std::string ml_model = (tmp.path / "ml/model.han").string();
  const RunResult ml_more = train(ml_cfg, "ml_more", " --init " + ml_model);
  CHECK(ml_more.err.find("same labels (") != std::string::npos);
  CHECK(json::parse(ml_more.out)["test"]["micro_f1"].is_number());

  // A regression model trained further on half its data keeps its target scale: its output
  // layer was trained for it.
  train(rg_cfg, "rg", "");
  const std::string rg_model = (tmp.path / "rg/model.han").string();
  const std::vector<std::string> rows = lines_of(slurp(source_path("tests/tasks/regression_train.jsonl")));
  std::string half;
  for (std::size_t i = 0; i < rows.size() / 2; ++i) half += rows[i] + "\n";
  const std::string half_path = tmp.write("half.jsonl", half);
  const RunResult rg_more = train(rg_cfg, "rg_more", " --init " + rg_model + " --set data.train=" + half_path);
  CHECK(rg_more.err.find("output layer and target scale") != std::string::npos);
  const json parent = json::parse(run(han_cmd("info --json --model " + rg_model)).out)["head"];
  const json child = json::parse(run(han_cmd("info --json --model " + (tmp.path / "rg_more/model.han").string())).out)["head"];
  CHECK(child["target_mean"] == parent["target_mean"]);
  CHECK(child["target_sd"] == parent["target_sd"]);
  train(rg_cfg, "rg_half", " --set data.train=" + half_path);
  const json half_head = json::parse(run(han_cmd("info --json --model " + (tmp.path / "rg_half/model.han").string())).out)["head"];
  CHECK(half_head["target_mean"] != parent["target_mean"]);  // the half alone has another scale: the check can fail

  // The multilabel model's layers for a regression task: a fresh output layer.
  const RunResult to_rg = train(rg_cfg, "ml_to_rg", " --init " + ml_model + " --set model.task=regression");
  CHECK(to_rg.err.find("a multilabel model, for model.task regression: a fresh output layer") != std::string::npos);
}
