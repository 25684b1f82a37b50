#pragma once
// Which scores han ablate compares, by model.task: the main one is the task's default
// trainer.select (accuracy, micro-F1, RMSE): its paired differences, wins and learning
// curves are reported; the second one (macro-F1, macro-F1, MAE) is shown beside it with
// its own paired difference. A win is a seed where the variant's main score is better
// than renorm's: higher, or lower for RMSE.
#include <string>

#include "han/core/config_enums.h"

namespace han {

struct AblationMetrics {
  SelectMetric main = SelectMetric::accuracy;
  SelectMetric second = SelectMetric::macro_f1;
  static AblationMetrics of(Task task);
};

// A score's short name in table headers and the report: "acc", "micro-F1", "RMSE", ...
std::string metric_label(SelectMetric metric);
// Whether the score lies in [0, 1] (every one but RMSE and MAE, in the target's units).
bool metric_in_unit_interval(SelectMetric metric);

}  // namespace han
