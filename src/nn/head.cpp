#include "han/nn/head.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "han/core/error.h"
#include "han/nn/loss.h"
#include "han/nn/multilabel_loss.h"
#include "han/nn/regression_loss.h"

namespace han {
namespace {

// (C, B) 0/1 matrix of each document's label set.
Matrix label_set_matrix(const Batch& batch, Index classes) {
  Matrix y = Matrix::Zero(classes, batch.size());
  for (Index b = 0; b < batch.size(); ++b)
    for (std::int32_t c : batch.label_sets[b]) y(c, b) = 1;
  return y;
}

}  // namespace

OutputHead initial_head(Task task, std::size_t labels, const TargetScale& scale) {
  OutputHead h;
  h.task = task;
  if (task == Task::multilabel) h.thresholds.assign(labels, kDefaultThreshold);
  if (task == Task::regression) h.scale = scale;
  return h;
}

void start_at_label_rates(Matrix& output_bias, const std::vector<double>& rates) {
  HAN_ASSERT(output_bias.rows() == static_cast<Index>(rates.size()) && output_bias.cols() == 1);
  for (std::size_t c = 0; c < rates.size(); ++c) {
    const double r = std::clamp(rates[c], 1e-4, 1 - 1e-4);
    output_bias(static_cast<Index>(c), 0) = static_cast<Scalar>(std::log(r / (1 - r)));
  }
}

Index head_outputs(Task task, std::size_t labels) {
  return task == Task::regression ? 1 : static_cast<Index>(labels);
}

Matrix head_answers(const OutputHead& head, const Matrix& logits) {
  if (head.answers_logits) return logits;
  // Without a temperature the logits are used as they are (a model from before
  // calibration answers bit for bit as it did).
  const auto tempered = [&] { return head.temperature == 1.0 ? logits : Matrix(logits / static_cast<Scalar>(head.temperature)); };
  switch (head.task) {
    case Task::single:
      return softmax_columns(tempered());
    case Task::multilabel:
      return sigmoid(tempered());
    case Task::regression:
      return logits.unaryExpr([&](Scalar z) { return static_cast<Scalar>(head.scale.restore(z)); });
  }
  return logits;
}

Matrix ensemble_answers(const OutputHead& head, const Matrix& mean_probabilities) {
  if (head.temperature == 1.0 && !head.answers_logits) return mean_probabilities;  // regression: always
  HAN_ASSERT(head.task != Task::regression);
  const auto log_of = [](const auto& p) { return p.max(std::numeric_limits<Scalar>::min()).log(); };
  const auto p = mean_probabilities.array();
  // The logits whose softmax (single) or sigmoids (multilabel) give the mean back.
  const Matrix logits = head.task == Task::single ? Matrix(log_of(p).matrix()) : Matrix((log_of(p) - log_of(1 - p)).matrix());
  if (head.answers_logits) return logits;
  return head_answers(head, logits);
}

double head_loss(const OutputHead& head, const LossConfig& loss, const Matrix& logits, const Batch& batch,
                 double scale, Matrix& d_logits) {
  switch (head.task) {
    case Task::single:
      return softmax_cross_entropy(logits, batch.labels, scale, d_logits, batch.weights);
    case Task::multilabel:
      return sigmoid_binary_cross_entropy(logits, label_set_matrix(batch, logits.rows()), batch.weights, scale,
                                          d_logits);
    case Task::regression: {
      std::vector<float> z(batch.targets.size());
      for (std::size_t b = 0; b < z.size(); ++b) z[b] = static_cast<float>(head.scale.standardise(batch.targets[b]));
      return regression_loss(logits, z, batch.weights, loss.regression, loss.huber_delta, scale, d_logits);
    }
  }
  return 0;
}

nlohmann::json head_to_json(const OutputHead& head) {
  nlohmann::json j = {{"task", to_string(head.task)}};
  if (head.temperature != 1.0) j["temperature"] = head.temperature;
  if (head.task == Task::multilabel) j["thresholds"] = head.thresholds;
  if (head.task == Task::regression)
    j.update({{"target_mean", head.scale.mean}, {"target_sd", head.scale.sd}, {"seen_targets", head.scale.seen}});
  return j;
}

bool head_has_section(const OutputHead& head) { return head.task != Task::single || head.temperature != 1.0; }

OutputHead head_from_json(const nlohmann::json& j, Task task, std::size_t labels, const std::string& origin) {
  const auto corrupted = [&](const std::string& why) {
    return Error(origin + ": model file is corrupted (" + why + ")");
  };
  if (task == Task::single && j.is_null()) return initial_head(task, labels);
  if (!j.is_object() || !j.contains("task") || j["task"] != to_string(task)) throw corrupted("no head for its task");
  OutputHead h = initial_head(task, labels);
  try {
    h.temperature = j.value("temperature", 1.0);
    // A model without thresholds answers at kDefaultThreshold.
    if (task == Task::multilabel && j.contains("thresholds")) h.thresholds = j.at("thresholds").get<std::vector<double>>();
    if (task == Task::regression) {
      h.scale.mean = j.at("target_mean").get<double>();
      h.scale.sd = j.at("target_sd").get<double>();
      h.scale.seen = j.at("seen_targets").get<std::vector<double>>();
    }
  } catch (const nlohmann::json::exception&) {
    throw corrupted("bad \"head\"");
  }
  if (task == Task::multilabel && h.thresholds.size() != labels) throw corrupted("thresholds do not match its labels");
  if (!(h.temperature >= kMinTemperature && h.temperature <= kMaxTemperature)) throw corrupted("bad temperature");
  if (task == Task::regression && !(h.scale.sd > 0 && std::isfinite(h.scale.mean) && std::isfinite(h.scale.sd)))
    throw corrupted("bad target scale");
  return h;
}

}  // namespace han
