#pragma once
// The scores of a model on labelled documents, whatever its task: one set of metrics per
// task, looked up by name (trainer.select), listed for metrics.jsonl and the train
// summary, and printed by han eval.
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "han/core/config_enums.h"
#include "han/infer/metrics.h"
#include "han/infer/multilabel_metrics.h"
#include "han/infer/regression_metrics.h"

namespace han {

struct TaskScores {
  Task task = Task::single;
  Metrics single;
  MultilabelMetrics multilabel;
  RegressionMetrics regression;
  // Mean loss per document: cross-entropy (single); binary cross-entropy summed over the
  // labels (multilabel); squared error in the target's units (regression).
  double loss = std::numeric_limits<double>::quiet_NaN();

  // The score `metric` names; it must be one of the task's (core/select_metric.h), not auto.
  double get(SelectMetric metric) const;
  // The task's headline scores by name, in a fixed order.
  std::vector<std::pair<std::string, double>> headline() const;
  nlohmann::json to_json(const std::vector<std::string>& labels) const;
  std::string to_text(const std::vector<std::string>& labels) const;
};

}  // namespace han
