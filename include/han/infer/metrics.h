#pragma once
// Classification metrics from (gold, predicted) label pairs.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace han {

struct ClassScores {
  double precision = 0, recall = 0, f1 = 0;
  std::int64_t support = 0;  // gold documents of the class
};

struct Metrics {
  std::int64_t total = 0;
  double accuracy = 0;
  double macro_f1 = 0;  // unweighted mean of the per-class F1 over all classes
  double log_loss = std::numeric_limits<double>::quiet_NaN();  // mean -ln p(gold), set by evaluate()
  std::vector<ClassScores> per_class;
  std::vector<std::vector<std::int64_t>> confusion;  // [gold][predicted]
};

// Precision, recall and F1 of one class from its true positives, answers and gold count
// (0 where undefined).
ClassScores class_scores(std::int64_t true_positives, std::int64_t answered, std::int64_t gold);
// {label: {"precision", "recall", "f1", "support"}} and the same as a text table whose
// first column is headed `what` ("class", "label").
nlohmann::json class_scores_json(const std::vector<ClassScores>& scores, const std::vector<std::string>& labels);
std::string class_scores_text(const std::vector<ClassScores>& scores, const std::vector<std::string>& labels,
                              const char* what);

Metrics compute_metrics(const std::vector<std::int32_t>& gold,
                        const std::vector<std::int32_t>& predicted, std::size_t classes);

// {"accuracy", "macro_f1", "documents", "per_class": {label: {...}}, "confusion": {"labels", "matrix"}}
nlohmann::json metrics_to_json(const Metrics& m, const std::vector<std::string>& labels);
// A readable report: summary, per-class table and confusion matrix.
std::string metrics_to_text(const Metrics& m, const std::vector<std::string>& labels);

}  // namespace han
