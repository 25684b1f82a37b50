#pragma once
// The typed results of han ablate and their JSON (DIR/runs/*.json and DIR/ablation.json).
// to_json/from_json keep the key names of the files earlier versions wrote, so an
// interrupted ablation resumes from them. Figures undefined with one seed (a standard
// deviation, a confidence interval) are std::nullopt in memory and null in JSON.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "han/core/config.h"
#include "han/core/types.h"
#include "han/study/statistics.h"
#include "han/text/tokenizer.h"

namespace han {

struct SplitScores {  // on one split (dev or test)
  double accuracy = 0, macro_f1 = 0;
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
  std::string label;  // predicted
  double probability = 0;
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
  std::vector<double> dev_curve;  // dev accuracy per epoch
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

// A variant against renorm with the same batching, paired by seed.
struct PairedComparison {
  double mean_diff = 0;  // accuracy
  std::optional<Interval> ci95;
  int wins = 0, ties = 0;
  double macro_f1_mean_diff = 0;
  std::optional<Interval> macro_f1_ci95;
  static PairedComparison of(const PairedDifference& accuracy, const PairedDifference& macro_f1);
  nlohmann::json to_json() const;
  static PairedComparison from_json(const nlohmann::json& j);
};

// A variant (mask x batching) summarised over its seeds.
struct AblationVariant {
  MaskMode mask = MaskMode::renorm;
  BatchStrategy batching = BatchStrategy::bucket;
  std::vector<std::uint64_t> seeds;
  std::string evaluated_on;           // "test", or "dev" without a test set
  SeedSummary accuracy, macro_f1;     // on evaluated_on
  SeedSummary dev_accuracy;
  std::optional<PairedComparison> vs_renorm;  // none for renorm itself or without renorm
  LevelFigures pad_attention_mass, padding_fraction;  // means over seeds
  double invariance_error = 0;                        // largest over seeds
  double epochs_to_best = 0, seconds_per_epoch = 0;   // means over seeds
  std::vector<std::vector<double>> dev_curve;         // per seed
  std::vector<AttentionExample> examples;             // of the first seed
  nlohmann::json to_json() const;
  static AblationVariant from_json(const nlohmann::json& j);
};

// A dev document shown in the report, as the model read it.
struct ExampleDocument {
  Index document = 0;
  std::string gold;
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
