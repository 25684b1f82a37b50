// The typed ablation results (their JSON, old files included), the shared column list
// and the terminal table's alignment.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "han/core/config.h"
#include "han/study/ablation_results.h"
#include "han/study/ablation_table.h"
#include "han/study/ablation_verdict.h"
#include "han/study/html.h"
#include "han/study/report.h"
#include "support/paths.h"
#include "support/run.h"

using namespace han;
using namespace han::test;
using nlohmann::json;

namespace {

const std::string kOld = "tests/ablation/written_by_0.1.0/";

json old_file(const std::string& name) { return json::parse(slurp(source_path(kOld + name))); }

// UTF-8 characters in s (counted here, not with the code under test).
std::size_t characters(const std::string& s) {
  std::size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// A variant over `seeds` seeds with made-up figures.
AblationVariant variant(MaskMode mask, const std::vector<double>& accuracy) {
  AblationVariant v;
  v.mask = mask;
  v.batching = BatchStrategy::random;
  for (std::size_t i = 0; i < accuracy.size(); ++i) v.seeds.push_back(i + 1);
  v.evaluated_on = "test";
  v.score = v.second_score = v.dev_score = SeedSummary::of(accuracy);
  v.invariance_error = 0.25;
  v.epochs_to_best = 2;
  v.seconds_per_epoch = 1.5;
  for (double a : accuracy) v.dev_curve.push_back({a});
  return v;
}

}  // namespace

TEST_CASE("a run file written by han 0.1.0 reads back into the types and writes out unchanged", "[ablation]") {
  const json stored = old_file("run_none-bucket-seed1.json");
  const AblationRun run = AblationRun::from_json(stored.at("run"));
  CHECK(run.mask == MaskMode::none);
  CHECK(run.batching == BatchStrategy::bucket);
  CHECK(run.seed == 1);
  REQUIRE(run.test.has_value());
  CHECK(run.scores_on("test").get(SelectMetric::accuracy) == stored["run"]["test"]["accuracy"].get<double>());
  CHECK(run.scores_on("dev").get(SelectMetric::macro_f1) == stored["run"]["dev"]["macro_f1"].get<double>());
  CHECK(run.examples.size() == stored["run"]["examples"].size());
  CHECK(run.to_json() == stored.at("run"));
  CHECK(run.to_json().dump() == stored.at("run").dump());
}

TEST_CASE("an ablation.json written by han 0.1.0 reads back into the types and writes out unchanged", "[ablation]") {
  const json stored = old_file("ablation.json");
  const AblationResult a = AblationResult::from_json(stored);
  REQUIRE(a.variants.size() == 2);
  CHECK(a.evaluated_on == "test");
  CHECK(a.variants[0].mask == MaskMode::none);
  CHECK(a.variants[0].vs_renorm.has_value());
  CHECK_FALSE(a.variants[1].vs_renorm.has_value());
  CHECK(a.variants[0].score.sd.value() == stored["variants"][0]["accuracy"]["sd"].get<double>());
  // Written before tokenizer.version existed: read as the rules it was made with (version 1),
  // and otherwise written back unchanged.
  CHECK(a.config.tokenizer.version == 1);
  json written = a.to_json();
  written["config"]["tokenizer"].erase("version");
  // Keys added since 0.1.0 are written with their defaults, which keep the old behaviour.
  const json defaults = han::config_to_json(han::Config{});
  for (auto& [section, keys] : written["config"].items()) {
    const json present = keys;
    for (const auto& [key, value] : present.items())
      if (!stored["config"][section].contains(key)) {
        INFO(section << "." << key);
        CHECK(value == defaults[section][key]);
        keys.erase(key);
      }
  }
  CHECK(written == stored);
  CHECK(written.dump(1) + "\n" == slurp(source_path(kOld + "ablation.json")));
}

TEST_CASE("a stored run missing any key is refused, not read with a default", "[ablation]") {
  const json run = old_file("run_none-bucket-seed1.json").at("run");
  for (const auto& item : run.items()) {
    json broken = run;
    broken.erase(item.key());
    INFO(item.key());
    CHECK_THROWS(AblationRun::from_json(broken));
  }
  json bad_mask = run;
  bad_mask["mask"] = "sometimes";
  CHECK_THROWS(AblationRun::from_json(bad_mask));
}

TEST_CASE("one seed: sd and interval are null in JSON and n/a in the columns", "[ablation]") {
  AblationVariant none = variant(MaskMode::none, {0.8});
  none.vs_renorm = PairedComparison::of(paired_difference({0.8}, {0.75}), paired_difference({0.7}, {0.7}));
  const json j = none.to_json();
  CHECK(j["accuracy"]["sd"].is_null());
  CHECK(j["vs_renorm"]["ci95"].is_null());
  CHECK(j["vs_renorm"]["macro_f1_ci95"].is_null());
  CHECK(AblationVariant::from_json(j).to_json() == j);
  const std::vector<AblationColumn> columns = ablation_columns("test");
  REQUIRE(columns.size() >= 6);
  CHECK(columns[2].header == "acc (test)");
  CHECK(columns[2].cell(none) == "0.8000 ± n/a");
  CHECK(columns[4].cell(none) == "+0.0500 [n/a]");
  CHECK(columns[5].cell(none) == "1/1");
  const AblationVariant renorm = variant(MaskMode::renorm, {0.75});
  CHECK(columns[4].cell(renorm) == "—");
  CHECK(columns[5].cell(renorm) == "—");
}

TEST_CASE("a variant's JSON and its cells in the shared column list", "[ablation]") {
  AblationVariant none = variant(MaskMode::none, {0.8, 0.9});
  none.vs_renorm = PairedComparison::of(paired_difference({0.8, 0.9}, {0.8, 0.8}), paired_difference({0.7, 0.7}, {0.7, 0.7}));
  const json j = none.to_json();
  CHECK(j["accuracy"]["sd"].get<double>() == Approx(0.0707107));
  REQUIRE(j["vs_renorm"]["ci95"].size() == 2);
  CHECK(j["vs_renorm"]["wins"] == 1);
  CHECK(j["vs_renorm"]["ties"] == 1);
  CHECK(AblationVariant::from_json(j).to_json() == j);
  const std::vector<AblationColumn> columns = ablation_columns("dev");
  CHECK(columns[2].header == "acc (dev)");
  CHECK(columns[2].cell(none) == "0.8500 ± 0.0707");
  // mean 0.05, sd of {0, 0.1} 0.0707, half width 12.7062 * 0.0707 / sqrt(2) = 0.6353
  CHECK(columns[4].cell(none) == "+0.0500 [-0.5853, +0.6853]");
  CHECK(columns[5].cell(none) == "1/2");
  const AblationVariant renorm = variant(MaskMode::renorm, {0.8, 0.8});
  CHECK(columns[4].cell(renorm) == "—");
  CHECK(columns[5].cell(renorm) == "—");
}

TEST_CASE("the terminal table, report.html and report.md show the same columns and cells", "[ablation]") {
  AblationResult a;
  a.evaluated_on = "test";
  a.variants = {variant(MaskMode::none, {0.8, 0.9}), variant(MaskMode::renorm, {0.75, 0.8})};
  a.variants[0].vs_renorm =
      PairedComparison::of(paired_difference({0.8, 0.9}, {0.75, 0.8}), paired_difference({0.8, 0.9}, {0.75, 0.8}));
  const std::string printed = ablation_table(a);
  const std::string table = printed.substr(0, printed.find("\n\n") + 1);  // then the verdict and legend
  const std::string html = ablation_report_html(a);
  const std::string md = ablation_markdown(a);
  const auto markdown = lines_of(md.substr(0, md.find("\n\n") + 1));
  const auto lines = lines_of(table);
  REQUIRE(markdown.size() == 4);
  CHECK(markdown[1].rfind("| --- | --- |", 0) == 0);
  REQUIRE(lines.size() == 3);
  for (const std::string& line : ablation_verdict(a)) {
    CHECK(printed.find("verdict: " + line + "\n") != std::string::npos);
    CHECK(md.find("- " + line + "\n") != std::string::npos);
    CHECK(html.find("<li>" + html_escape(line) + "</li>") != std::string::npos);
  }
  for (const std::string& line : ablation_legend(a.config)) {
    CHECK(printed.find("  " + line + "\n") != std::string::npos);
    CHECK(md.find("- " + line + "\n") != std::string::npos);
    CHECK(html.find("<li>" + html_escape(line) + "</li>") != std::string::npos);
  }
  const std::vector<AblationColumn> columns = ablation_columns("test");
  for (const AblationColumn& c : columns) {
    INFO(c.header);
    CHECK(lines[0].find(c.header) != std::string::npos);
    CHECK(html.find("<th>" + c.header + "</th>") != std::string::npos);
    CHECK(markdown[0].find("| " + c.header + " |") != std::string::npos);
    for (const AblationVariant& v : a.variants) CHECK(html.find("<td>" + c.cell(v) + "</td>") != std::string::npos);
    for (std::size_t i = 0; i < a.variants.size(); ++i)
      CHECK(markdown[i + 2].find("| " + c.cell(a.variants[i]) + " |") != std::string::npos);
  }
  // Aligned although the Δ header and renorm's — are multi-byte: each column starts at the
  // same character (display) position in every line.
  std::vector<std::vector<std::size_t>> starts(lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::size_t from = 0;
    for (const AblationColumn& c : columns) {
      const std::string text = i == 0 ? c.header : c.cell(a.variants[i - 1]);
      const std::size_t at = lines[i].find(text, from);
      REQUIRE(at != std::string::npos);
      starts[i].push_back(characters(lines[i].substr(0, at)));
      from = at + text.size();
    }
  }
  CHECK(starts[1] == starts[0]);
  CHECK(starts[2] == starts[0]);
}

TEST_CASE("a regression variant names its scores rmse and mae in JSON and columns, and wins by a lower RMSE",
          "[ablation]") {
  AblationVariant none = variant(MaskMode::none, {1.2, 1.0});
  none.task = Task::regression;
  none.vs_renorm = PairedComparison::of(paired_difference({1.2, 1.0}, {1.3, 1.1}, true),
                                        paired_difference({0.9, 0.8}, {1.0, 0.8}), SelectMetric::mae);
  const json j = none.to_json();
  CHECK(j["task"] == "regression");
  CHECK(j["rmse"]["mean"].get<double>() == Approx(1.1));
  CHECK(j.contains("mae"));
  CHECK(j.contains("dev_rmse"));
  for (const char* single_key : {"accuracy", "macro_f1", "dev_accuracy"}) CHECK_FALSE(j.contains(single_key));
  CHECK(j["vs_renorm"]["mae_mean_diff"].get<double>() == Approx(-0.05));
  CHECK(j["vs_renorm"]["mae_ci95"].size() == 2);
  CHECK_FALSE(j["vs_renorm"].contains("macro_f1_mean_diff"));
  CHECK(j["vs_renorm"]["wins"] == 2);  // lower in both seeds
  CHECK(AblationVariant::from_json(j).to_json() == j);

  const std::vector<AblationColumn> columns = ablation_columns("test", Task::regression);
  CHECK(columns[2].header == "RMSE (test)");
  CHECK(columns[3].header == "MAE");
  CHECK(columns[4].header == "ΔRMSE vs renorm [95% CI]");
  CHECK(columns[5].header == "wins (lower)");
  CHECK(columns[2].cell(none) == "1.1000 ± 0.1414");
  CHECK(columns[5].cell(none) == "2/2");
  CHECK(ablation_columns("dev", Task::multilabel)[2].header == "micro-F1 (dev)");
  CHECK(ablation_columns("dev", Task::multilabel)[5].header == "wins");
}

TEST_CASE("a run's scores are the task's headline scores but the loss, undefined ones null", "[ablation]") {
  TaskScores t;
  t.task = Task::regression;
  t.regression.rmse = 1.5;
  t.regression.mae = 1.25;
  t.regression.pearson = std::numeric_limits<double>::quiet_NaN();
  t.loss = 2.25;
  const SplitScores s = SplitScores::of(t);
  CHECK(s.get(SelectMetric::rmse) == 1.5);
  CHECK(s.get(SelectMetric::mae) == 1.25);
  CHECK_FALSE(s.has(SelectMetric::loss));
  CHECK_FALSE(s.has(SelectMetric::accuracy));
  const json j = s.to_json();
  CHECK(j["pearson"].is_null());
  const SplitScores back = SplitScores::from_json(j);
  CHECK(std::isnan(back.get(SelectMetric::pearson)));
  CHECK(back.to_json() == j);
  CHECK_THROWS(SplitScores::from_json(json::object()));
  CHECK_THROWS(SplitScores::from_json(json{{"rmse", "low"}}));
}

TEST_CASE("the verdict says better, worse, no measurable difference, tied or too few seeds, as the interval does",
          "[ablation]") {
  AblationResult a;
  a.config.model.linear_member = false;
  a.evaluated_on = "test";
  auto against_renorm = [](MaskMode mask, const std::vector<double>& own, const std::vector<double>& renorm) {
    AblationVariant v = variant(mask, own);
    v.vs_renorm = PairedComparison::of(paired_difference(own, renorm), paired_difference(own, renorm));
    return v;
  };
  a.variants = {against_renorm(MaskMode::none, {0.70, 0.71, 0.72}, {0.80, 0.80, 0.81}),
                against_renorm(MaskMode::additive, {0.80, 0.80, 0.81}, {0.80, 0.80, 0.81}),
                against_renorm(MaskMode::none, {0.81, 0.79, 0.82}, {0.80, 0.80, 0.81}),
                against_renorm(MaskMode::none, {0.90}, {0.80}), variant(MaskMode::renorm, {0.80, 0.80, 0.81})};
  const std::vector<std::string> verdict = ablation_verdict(a);
  REQUIRE(verdict.size() == 4);
  CHECK(verdict[0] == "with random batching, none does worse than renorm: Δacc -0.0933 [-0.1077, -0.0790], 0 of 3 seeds won");
  CHECK(verdict[1] == "with random batching, additive and renorm score the same acc on every seed (3 of 3 tied)");
  CHECK(verdict[2].rfind("with random batching, none and renorm do not differ measurably: Δacc +0.0033 [", 0) == 0);
  CHECK(verdict[2].find("], the 95 % interval holds 0") != std::string::npos);
  CHECK(verdict[3] == "with random batching, none vs renorm: Δacc +0.1000 from one seed, which cannot tell them apart; "
                      "run 3 or more seeds (-n)");

  // An error (lower is better): a lower RMSE than renorm's is better.
  a.config.model.task = Task::regression;
  a.variants = {against_renorm(MaskMode::none, {0.50, 0.51, 0.52}, {0.60, 0.60, 0.61})};
  CHECK(ablation_verdict(a)[0].rfind("with random batching, none does better than renorm: ΔRMSE -0.0933", 0) == 0);

  a.variants = {variant(MaskMode::none, {0.8}), variant(MaskMode::additive, {0.8})};
  a.config.model.linear_member = true;
  CHECK(ablation_verdict(a) ==
        std::vector<std::string>{"renorm is not among the variants (--masks), and each variant is compared with "
                                 "renorm: nothing to compare",
                                 "the linear member is blended into every variant (--with-member): it is the same in "
                                 "every variant, so it narrows their differences"});
}
