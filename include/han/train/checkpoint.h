#pragma once
// Checkpoints: a model file that also carries the optimizer state (as extra tensors) and
// the training progress (in its header), so an interrupted run continues to the very
// parameters an uninterrupted one reaches.
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "han/core/types.h"
#include "han/infer/classifier.h"
#include "han/nn/parameters.h"
#include "han/train/epoch_record.h"
#include "han/train/optimizer.h"

namespace han {

// Everything besides tensors that a checkpoint must carry to continue a run exactly.
struct TrainState {
  int epoch = 1;               // the epoch in progress
  std::size_t next_batch = 0;  // its first batch still to run
  double loss_sum = 0, epoch_seconds = 0;
  Index docs_seen = 0, tokens_seen = 0, sentences_seen = 0, word_slots = 0, sentence_slots = 0;
  double best_score = -std::numeric_limits<double>::infinity();
  int best_epoch = 0, epochs_without_gain = 0;
  std::vector<EpochRecord> history;

  nlohmann::json to_json() const;  // an infinite best_score as null
  static TrainState from_json(const nlohmann::json& j);
  void start_epoch(int e);  // progress counters back to zero
};

// Writes atomically. `refs` are the trained parameters the optimizer state belongs to.
void save_checkpoint(const std::string& path, const Classifier& model, Optimizer& optimizer,
                     const std::vector<ParamRef>& refs, const TrainState& state);

// Restores model.params (replaced: rebuild refs into them), the optimizer state and the
// progress. The checkpoint must come from the same data and config as `model`, else a
// han::Error naming the file.
TrainState load_checkpoint(const std::string& path, Classifier& model, Optimizer& optimizer,
                           const std::vector<ParamRef>& refs);

}  // namespace han
