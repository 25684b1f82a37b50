#pragma once
// han ablate: trains every variant (mask x batching) for each seed on the same data,
// with the same initialisation and the same batches per seed, and measures accuracy,
// paired differences against renorm, learning curves, padding, the attention mass
// padded positions receive, invariance to batch composition and time per epoch.
// Finished runs are stored under DIR/runs/ and re-used when the command is re-run.
#include <functional>
#include <string>
#include <vector>

#include "han/core/config.h"
#include "han/study/ablation_results.h"
#include "han/text/corpus.h"

namespace han {

struct AblationOptions {
  std::vector<std::uint64_t> seeds = {1, 2, 3};
  std::vector<MaskMode> masks = {MaskMode::none, MaskMode::renorm, MaskMode::additive};
  std::vector<BatchStrategy> batchings = {BatchStrategy::bucket, BatchStrategy::random};
  std::string output_dir;  // required: DIR/runs/*.json
  std::function<void(const std::string&)> log;
};

// Runs (or re-uses) every run and returns what ablation.json holds.
AblationResult run_ablation(const Config& base, const Corpus& corpus, const AblationOptions& options);

}  // namespace han
