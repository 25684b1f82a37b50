#pragma once
// The typed results of han ablate and their JSON (DIR/runs/*.json and DIR/ablation.json).
// to_json/from_json keep the key names of the files earlier versions wrote, so an
// interrupted ablation resumes from them. Figures undefined with one seed (a standard
// deviation, a confidence interval) are std::nullopt in memory and null in JSON. The
// scores are the task's (study/ablation_metrics.h), named in JSON as trainer.select names
// them; a single-label ablation's files keep the keys they had before other tasks.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "han/core/config.h"
#include "han/core/types.h"
#include "han/infer/task_scores.h"
#include "han/study/ablation_metrics.h"
#include "han/study/statistics.h"
#include "han/text/tokenizer.h"

namespace han {

// The task's scores on one split (dev or test) by name: accuracy and macro_f1 (single);
// micro_f1, macro_f1, ... (multilabel); rmse, mae, ... (regression). Undefined ones (a
// constant answer's correlation) are NaN in memory, null in JSON.
struct SplitScores {
  std::map<std::string, double> scores;
  static SplitScores of(const TaskScores& scores);  // its headline scores but the loss
  bool has(SelectMetric metric) const { return scores.count(to_string(metric)) > 0; }
  double get(SelectMetric metric) const;  // the run must have it
  nlohmann::json to_json() const;
  static SplitScores from_json(const nlohmann::json& j);
};

struct LevelFigures {  // one figure at word and at sentence level
  double word = 0, sentence = 0;
  nlohmann::json to_json() const;
  static LevelFigures from_json(const nlohmann::json& j);
};

// A dev document's prediction and attention under one run (shown in report.html).
struct AttentionExample {
  Index document = 0;
  std::string label;  // predicted (the most probable one); "predicted" for regression
  double probability = 0;  // the label's; regression: the predicted number
  std::vector<float> sentence_weights;
  std::vector<std::vector<float>> word_weights;
  nlohmann::json to_json() const;
  static AttentionExample from_json(const nlohmann::json& j);
};

// One trained run: a variant (mask x batching) with one seed; stored in DIR/runs/.
struct AblationRun {
  MaskMode mask = MaskMode::renorm;
  BatchStrategy batching = BatchStrategy::bucket;
  std::uint64_t seed = 0;
  std::vector<double> dev_curve;  // the main dev score per epoch
  int best_epoch = 0;
  SplitScores dev;
  std::optional<SplitScores> test;  // none without a test set
  LevelFigures padding_fraction;    // of the training batches
  LevelFigures pad_attention_mass;  // on dev
  double invariance_error = 0;
  double seconds_per_epoch = 0;
  std::vector<AttentionExample> examples;
  // The scores on "dev" or "test" (which the run must have).
  const SplitScores& scores_on(const std::string& split) const;
  nlohmann::json to_json() const;
  static AblationRun from_json(const nlohmann::json& j);  // throws on a missing or mistyped key
};

// One figure over the seeds of a variant.
struct SeedSummary {
  double mean = 0;
  std::optional<double> sd;  // undefined with one seed
  std::vector<double> values;
  static SeedSummary of(const std::vector<double>& values);
  nlohmann::json to_json() const;
  static SeedSummary from_json(const nlohmann::json& j);
};

// A variant against renorm with the same batching, paired by seed: the main score's
// difference (variant - renorm), interval and wins; the second score's difference and
// interval, in JSON as <second>_mean_diff and <second>_ci95.
struct PairedComparison {
  double mean_diff = 0;
  std::optional<Interval> ci95;
  int wins = 0, ties = 0;
  SelectMetric second = SelectMetric::macro_f1;
  double second_mean_diff = 0;
  std::optional<Interval> second_ci95;
  static PairedComparison of(const PairedDifference& main, const PairedDifference& second_score,
                             SelectMetric second = SelectMetric::macro_f1);
  nlohmann::json to_json() const;
  static PairedComparison from_json(const nlohmann::json& j, SelectMetric second = SelectMetric::macro_f1);
};

// A variant (mask x batching) summarised over its seeds. In JSON its scores are named by
// the task's metrics ("accuracy", "macro_f1", "dev_accuracy" for single-label; "rmse",
// "mae", "dev_rmse" for regression), and "task" is written unless it is single.
struct AblationVariant {
  Task task = Task::single;
  MaskMode mask = MaskMode::renorm;
  BatchStrategy batching = BatchStrategy::bucket;
  std::vector<std::uint64_t> seeds;
  std::string evaluated_on;         // "test", or "dev" without a test set
  SeedSummary score, second_score;  // the task's main and second score on evaluated_on
  SeedSummary dev_score;            // the main score on dev
  std::optional<PairedComparison> vs_renorm;  // none for renorm itself or without renorm
  LevelFigures pad_attention_mass, padding_fraction;  // means over seeds
  double invariance_error = 0;                        // largest over seeds
  double epochs_to_best = 0, seconds_per_epoch = 0;   // means over seeds
  std::vector<std::vector<double>> dev_curve;         // the main dev score per epoch, per seed
  std::vector<AttentionExample> examples;             // of the first seed
  nlohmann::json to_json() const;
  static AblationVariant from_json(const nlohmann::json& j);
};

// A dev document shown in the report, as the model read it.
struct ExampleDocument {
  Index document = 0;
  std::string gold;  // the label; the labels joined by ","; the number
  TokenizedText words;
  nlohmann::json to_json() const;
  static ExampleDocument from_json(const nlohmann::json& j);
};

// The whole study: DIR/ablation.json.
struct AblationResult {
  Config config;  // the base config
  std::string evaluated_on;
  std::vector<AblationVariant> variants;
  std::vector<ExampleDocument> example_documents;
  std::size_t train_documents = 0, dev_documents = 0, test_documents = 0;
  nlohmann::json to_json() const;
  static AblationResult from_json(const nlohmann::json& j);
};

}  // namespace han
