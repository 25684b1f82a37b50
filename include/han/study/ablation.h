#pragma once
// han ablate: trains every variant (mask x batching) for each seed on the same data,
// with the same initialisation and the same batches per seed, and measures accuracy,
// paired differences against renorm, learning curves, padding, the attention mass
// padded positions receive, invariance to batch composition and time per epoch.
// Finished runs are stored under DIR/runs/ and re-used when the command is re-run.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "han/core/config.h"
#include "han/study/ablation_results.h"
#include "han/text/corpus.h"
#include "han/train/trainer.h"

namespace han {

// Where an ablation is: run `run` of `runs` (1-based), named like its file
// (none-bucket-seed1), and how far its training is.
struct AblationProgress {
  int run = 0, runs = 0;
  std::string name;
  TrainProgress training;
};

struct AblationOptions {
  std::vector<std::uint64_t> seeds = {1, 2, 3};
  std::vector<MaskMode> masks = {MaskMode::none, MaskMode::renorm, MaskMode::additive};
  std::vector<BatchStrategy> batchings = {BatchStrategy::bucket, BatchStrategy::random};
  std::string output_dir;  // required: DIR/runs/*.json
  // Replace what output_dir holds (a training run, another config's ablation) instead of
  // refusing it; finished runs of this config are then trained again too.
  bool overwrite = false;
  std::function<void(const std::string&)> log;
  std::function<void(const AblationProgress&)> on_batch;  // after every training step
  // Checked before and after every run and inside it (see TrainOptions): when it returns
  // true, the run in progress is dropped and run_ablation returns what is stored.
  std::function<bool()> stop_requested;
};

// What run_ablation ends with: every run done (result set), or stopped by stop_requested
// (no result) with `finished` of the `total` runs stored in output_dir/runs.
struct AblationOutcome {
  std::optional<AblationResult> result;
  int finished = 0, total = 0;
};

// Refuses (han::Error naming it) an output folder holding what this ablation would
// replace rather than re-use: a training run, or finished runs of another config (runs
// differing only in mask, batching or seed are this config's). Does nothing with
// options.overwrite. Writes nothing: call it before reading the data.
void check_ablation_folder(const Config& base, const AblationOptions& options);

// Runs (or re-uses) every run; the result is what ablation.json holds.
AblationOutcome run_ablation(const Config& base, const Corpus& corpus, const AblationOptions& options);

}  // namespace han
