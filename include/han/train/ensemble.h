#pragma once
// An ensemble run (trainer.ensemble = N > 1): N members trained one after the other, member
// k (1..N) with seed trainer.seed + k - 1 and otherwise the same config (and the same
// pretrained vectors), each a whole run with its own early stopping on dev, in
// DIR/members/<k>/ (model.han, metrics.jsonl; checkpoint.han while interrupted). Once all
// are trained, DIR/model.han holds the ensemble, whose prediction averages the members'
// probabilities. DIR/metrics.jsonl holds every member's epochs ("member": k) and, once
// complete, one result line per member and one for the ensemble.
// A resumed run keeps the finished members, continues the interrupted one and trains the rest.
// With options.calibrate, every member is calibrated as a run alone is, and the ensemble
// gets its own temperature fitted on its members' mean probabilities (nn/head.h:
// ensemble_answers), with which its dev scores are measured.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "han/core/config.h"
#include "han/infer/task_scores.h"
#include "han/text/corpus.h"
#include "han/train/trainer.h"

namespace han {

struct EnsembleResult {
  std::vector<TrainResult> members;  // trained or kept, in seed order; the last one interrupted when `interrupted`
  std::vector<bool> kept;            // finished before this call (a resumed run)
  bool interrupted = false;
  std::string checkpoint;  // the interrupted member's
  TaskScores dev;          // the ensemble's (when complete and there is a dev set)
  bool dev_scored = false;
  double seconds = 0;
  OutputHead head;                            // the ensemble's: calibrated, or without a temperature
  std::optional<DevCalibration> calibration;  // the ensemble's, on its members' mean probabilities
  LinearMemberResult linear;                  // model.linear_member's (empty params without one)
};

// Member k's config (k = 1..N): seed trainer.seed + k - 1, one model, no linear member
// (model.linear_member: the ensemble trains one, once its members are trained).
Config member_config(const Config& cfg, int member);
// DIR/members/<k>.
std::string member_folder(const std::string& folder, int member);

// Trains (or, with options.resume, continues) the ensemble `cfg` describes into
// options.output_dir. on_member(k) is called as member k starts or is found finished.
EnsembleResult train_ensemble(const Config& cfg, const Corpus& corpus, const TrainOptions& options,
                              const std::function<void(int member, bool kept)>& on_member = {});

// The result lines of metrics.jsonl (and the train summary): member k's best epoch and
// scores, and the ensemble's; `test` holds test scores (null: no test set, or not scored).
nlohmann::json member_result_json(const Config& cfg, const EnsembleResult& r, int member, const nlohmann::json& test);
nlohmann::json ensemble_result_json(const Config& cfg, const EnsembleResult& r, const nlohmann::json& test);
// The dev_* fields of a result line (the task's dev scores).
nlohmann::json dev_scores_of(const nlohmann::json& result);

// Rewrites DIR/metrics.jsonl: the members' epoch records, then `results`.
void write_ensemble_metrics(const std::string& folder, int members, const std::vector<nlohmann::json>& results = {});

}  // namespace han
