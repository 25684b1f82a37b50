#include "han/infer/task_scores.h"

#include <cstdio>

#include "han/core/error.h"
#include "han/core/json_text.h"

namespace han {

double TaskScores::get(SelectMetric metric) const {
  using M = SelectMetric;
  switch (metric) {
    case M::accuracy:
      return single.accuracy;
    case M::macro_f1:
      return task == Task::multilabel ? multilabel.macro_f1 : single.macro_f1;
    case M::loss:
      return loss;
    case M::micro_f1:
      return multilabel.micro_f1;
    case M::subset_accuracy:
      return multilabel.subset_accuracy;
    case M::hamming_loss:
      return multilabel.hamming_loss;
    case M::precision_at_1:
      return multilabel.precision_at_1;
    case M::rmse:
      return regression.rmse;
    case M::mae:
      return regression.mae;
    case M::pearson:
      return regression.pearson;
    case M::spearman:
      return regression.spearman;
    case M::auto_:
      break;
  }
  HAN_ASSERT(false);
  return 0;
}

std::vector<std::pair<std::string, double>> TaskScores::headline() const {
  switch (task) {
    case Task::single:
      return {{"accuracy", single.accuracy}, {"macro_f1", single.macro_f1}, {"loss", loss}};
    case Task::multilabel: {
      const MultilabelMetrics& m = multilabel;
      return {{"micro_f1", m.micro_f1},        {"macro_f1", m.macro_f1},         {"subset_accuracy", m.subset_accuracy},
              {"hamming_loss", m.hamming_loss}, {"precision_at_1", m.precision_at_1}, {"recall_at_1", m.recall_at_1},
              {"loss", loss}};
    }
    case Task::regression: {
      const RegressionMetrics& m = regression;
      return {{"rmse", m.rmse},         {"mae", m.mae}, {"pearson", m.pearson}, {"spearman", m.spearman},
              {"rounded_accuracy", m.rounded_accuracy}, {"loss", loss}};
    }
  }
  return {};
}

nlohmann::json TaskScores::to_json(const std::vector<std::string>& labels) const {
  nlohmann::json j = task == Task::single       ? metrics_to_json(single, labels)
                     : task == Task::multilabel ? multilabel_metrics_to_json(multilabel, labels)
                                                : regression_metrics_to_json(regression);
  j["task"] = to_string(task);
  j["loss"] = finite_or_null(loss);
  return j;
}

std::string TaskScores::to_text(const std::vector<std::string>& labels) const {
  switch (task) {
    case Task::single:
      return metrics_to_text(single, labels);
    case Task::multilabel:
      return multilabel_metrics_to_text(multilabel, labels);
    case Task::regression:
      return regression_metrics_to_text(regression);
  }
  return {};
}

}  // namespace han
