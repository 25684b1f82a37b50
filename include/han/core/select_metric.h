#pragma once
// Which dev scores each task has, which one picks the best epoch by default, and which
// are better when lower (trainer.select).
#include <string>

#include "han/core/config_enums.h"

namespace han {

// Whether `metric` is a score of `task` (auto fits every task).
bool select_metric_fits(SelectMetric metric, Task task);
// The metric auto stands for: accuracy (single), micro_f1 (multilabel), rmse (regression).
SelectMetric resolve_select_metric(SelectMetric metric, Task task);
// loss, hamming_loss, rmse and mae: smaller is better.
bool lower_is_better(SelectMetric metric);
// The names that fit the task, for messages: "auto, accuracy, macro_f1 or loss".
std::string select_metric_choices(Task task);

}  // namespace han
