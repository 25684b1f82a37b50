#pragma once
// The output head: what the model's last linear layer means for each task (model.task),
// how its logits become answers, and the loss trained on them.
//   single      C logits -> softmax probabilities; softmax cross-entropy
//   multilabel  C logits -> one sigmoid per label; binary cross-entropy
//   regression  1 output -> the standardised target, restored with the training mean/sd; mse or huber
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "han/core/config.h"
#include "han/core/types.h"
#include "han/text/batch.h"
#include "han/text/target_scale.h"

namespace han {

// Multi-label decision threshold until thresholds are tuned.
constexpr double kDefaultThreshold = 0.5;
// The range a temperature is fitted in (beyond it the answers are all but one-hot or uniform).
constexpr double kMinTemperature = 0.05, kMaxTemperature = 20.0;

struct OutputHead {
  Task task = Task::single;
  TargetScale scale;               // regression
  std::vector<double> thresholds;  // multilabel: one per label, a label is answered when p >= its threshold
  // single, multilabel: the logits are divided by it before the softmax or sigmoids
  // (temperature scaling, fitted on dev after training; 1 = none, as in older models).
  double temperature = 1.0;
  // Answer the logits themselves (to fit or measure calibration) instead of the task's answers.
  bool answers_logits = false;
};

// The head a model of `task` over `labels` starts with (thresholds at kDefaultThreshold).
OutputHead initial_head(Task task, std::size_t labels, const TargetScale& scale = {});

// Multi-label: starts each label's output bias at the logit of its training rate, so the
// sigmoids begin at the label priors instead of 0.5 (with many rare labels, the first
// epochs would otherwise go to learning that most labels are absent). Rates are clamped
// to [1e-4, 1 - 1e-4].
void start_at_label_rates(Matrix& output_bias, const std::vector<double>& rates);

// Rows of the output layer: the label count, or 1 for regression.
Index head_outputs(Task task, std::size_t labels);

// Answers (rows as the logits): probabilities (single, multilabel) or numbers (regression);
// the logits unchanged when head.answers_logits.
Matrix head_answers(const OutputHead& head, const Matrix& logits);

// An ensemble's answers from its members' mean answers (C, B): the mean itself without a
// temperature (and always for regression, whose answers are numbers). Else the logits that
// give the mean back are tempered: single-label softmax(log(mean) / T), which keeps the
// mean's argmax; multilabel sigmoid(logit(mean) / T) per label. With head.answers_logits,
// those logits (what the temperature divides). Probabilities under the smallest normal
// float count as it (the logs stay finite).
Matrix ensemble_answers(const OutputHead& head, const Matrix& mean_probabilities);

// The summed loss of the batch's documents (each times its weight), d_logits receiving
// scale times its gradient. Every document must carry its gold answer.
double head_loss(const OutputHead& head, const LossConfig& loss, const Matrix& logits, const Batch& batch,
                 double scale, Matrix& d_logits);

// The model file's "head" section ({"task", ...}, "temperature" when it is not 1); a
// single-label model without a temperature has none, as before the section existed.
nlohmann::json head_to_json(const OutputHead& head);
// Whether the head has anything to store (else the file has no "head").
bool head_has_section(const OutputHead& head);
// Reads it back; `labels` checks the thresholds' count. Errors name `origin`.
OutputHead head_from_json(const nlohmann::json& j, Task task, std::size_t labels, const std::string& origin);

}  // namespace han
