#include "han/study/ablation_metrics.h"

#include "han/core/select_metric.h"

namespace han {

AblationMetrics AblationMetrics::of(Task task) {
  const SelectMetric main = resolve_select_metric(SelectMetric::auto_, task);
  return {main, task == Task::regression ? SelectMetric::mae : SelectMetric::macro_f1};
}

std::string metric_label(SelectMetric metric) {
  switch (metric) {
    case SelectMetric::accuracy:
      return "acc";
    case SelectMetric::macro_f1:
      return "macro-F1";
    case SelectMetric::micro_f1:
      return "micro-F1";
    case SelectMetric::rmse:
      return "RMSE";
    case SelectMetric::mae:
      return "MAE";
    default:
      return to_string(metric);
  }
}

bool metric_in_unit_interval(SelectMetric metric) {
  return metric != SelectMetric::rmse && metric != SelectMetric::mae && metric != SelectMetric::loss;
}

}  // namespace han
