#include "han/core/select_metric.h"

#include <vector>

namespace han {
namespace {

std::vector<SelectMetric> metrics_of(Task task) {
  using M = SelectMetric;
  switch (task) {
    case Task::single:
      return {M::auto_, M::accuracy, M::macro_f1, M::loss};
    case Task::multilabel:
      return {M::auto_, M::micro_f1, M::macro_f1, M::subset_accuracy, M::hamming_loss, M::precision_at_1, M::loss};
    case Task::regression:
      return {M::auto_, M::rmse, M::mae, M::pearson, M::spearman, M::loss};
  }
  return {};
}

}  // namespace

bool select_metric_fits(SelectMetric metric, Task task) {
  for (SelectMetric m : metrics_of(task))
    if (m == metric) return true;
  return false;
}

SelectMetric resolve_select_metric(SelectMetric metric, Task task) {
  if (metric != SelectMetric::auto_) return metric;
  switch (task) {
    case Task::single:
      return SelectMetric::accuracy;
    case Task::multilabel:
      return SelectMetric::micro_f1;
    case Task::regression:
      return SelectMetric::rmse;
  }
  return SelectMetric::accuracy;
}

bool lower_is_better(SelectMetric metric) {
  return metric == SelectMetric::loss || metric == SelectMetric::hamming_loss || metric == SelectMetric::rmse ||
         metric == SelectMetric::mae;
}

std::string select_metric_choices(Task task) {
  const std::vector<SelectMetric> metrics = metrics_of(task);
  std::string out;
  for (std::size_t i = 0; i < metrics.size(); ++i)
    out += std::string(i == 0 ? "" : i + 1 == metrics.size() ? " or " : ", ") + to_string(metrics[i]);
  return out;
}

}  // namespace han
