#pragma once
// Training: epochs over seeded batches, each batch split into per-thread shards (ranks x
// threads in a distributed run) whose gradients are summed in a fixed order (same config,
// seed and shard count give a bit-identical model); dev accuracy and macro-F1 after each epoch; the best epoch is
// kept (and written when an output folder is given); early stopping on patience.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "han/core/config.h"
#include "han/infer/classifier.h"
#include "han/infer/task_scores.h"
#include "han/text/corpus.h"
#include "han/nn/model.h"
#include "han/train/collective.h"
#include "han/train/calibration.h"
#include "han/train/epoch_record.h"
#include "han/train/linear_member_training.h"

namespace han {

struct TrainProgress {
  int epoch = 0, epochs = 0;
  Index batch = 0, batches = 0;
  double mean_loss = 0, docs_per_second = 0, seconds = 0;
};

struct TrainOptions {
  std::string output_dir;  // "" = write nothing; else the run folder (see run_folder.h)
  std::function<void(const EpochRecord&)> on_epoch;
  std::function<void(const TrainProgress&)> on_batch;
  // Checked before every step and between the batches of the dev scoring: when it
  // returns true, the run writes output_dir/checkpoint.han (a stop during the dev scoring
  // resumes at that scoring) and returns with interrupted = true.
  std::function<bool()> stop_requested;
  // Continue from output_dir/checkpoint.han (same config and data) to the same
  // parameters an uninterrupted run reaches.
  bool resume = false;
  // The vectors of model.embeddings = "pretrain" when they are not output_dir/vectors.txt
  // (an ensemble's members share their run's).
  std::string pretrained_vectors;
  // The ranks of a distributed run (train/collective.h), null for a process training alone.
  // Each rank takes its share of every batch's shards and of the dev batches; rank 0 alone
  // writes output_dir; a stop requested of any rank stops every rank at the same step.
  Collective* job = nullptr;
  // trainer.init's model (train/init_model.h): a new run starts from its parameters.
  const Classifier* parent = nullptr;
  // Once the run is complete, with trainer.calibrate and a dev set: calibrate output_dir's
  // model.han on dev (train/calibration.h). han train asks for it; the ablation does not.
  bool calibrate = false;
};

struct TrainResult {
  std::vector<EpochRecord> history;
  int best_epoch = 0;
  bool stopped_early = false;
  Index skipped_empty = 0;  // empty training documents left out
  HanParams best_params;
  HanParams last_params;  // after the last step taken
  bool interrupted = false;
  std::string checkpoint;  // written when interrupted
  double seconds = 0;
  OutputHead head;                           // model.han's: calibrated, or as the model started
  std::optional<DevCalibration> calibration;  // what calibration fitted and changed on dev
  LinearMemberResult linear;                  // model.linear_member's (empty params without one)
  std::optional<TaskScores> dev_with_linear;  // the HAN's best epoch and the linear member together
};

TrainResult train_model(const Config& cfg, const Corpus& corpus, const TrainOptions& options = {});

}  // namespace han
