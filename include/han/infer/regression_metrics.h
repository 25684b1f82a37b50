#pragma once
// Regression scores from gold and predicted numbers.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace han {

struct RegressionMetrics {
  std::int64_t total = 0;
  double rmse = 0, mae = 0;
  double pearson = std::numeric_limits<double>::quiet_NaN();   // undefined when either side is constant
  double spearman = std::numeric_limits<double>::quiet_NaN();  // Pearson of the ranks (ties share their mean rank)
  // Share of predictions that, rounded to the nearest training target, equal the gold
  // number; NaN when the model keeps no training targets.
  double rounded_accuracy = std::numeric_limits<double>::quiet_NaN();
};

// `seen`: the sorted distinct training targets (may be empty).
RegressionMetrics compute_regression_metrics(const std::vector<double>& gold, const std::vector<double>& predicted,
                                             const std::vector<double>& seen);

// Pearson correlation of x and y (NaN when either is constant or they are shorter than 2).
double pearson_correlation(const std::vector<double>& x, const std::vector<double>& y);
// 1-based ranks, ties given the mean of the ranks they span.
std::vector<double> average_ranks(const std::vector<double>& x);

nlohmann::json regression_metrics_to_json(const RegressionMetrics& m);
std::string regression_metrics_to_text(const RegressionMetrics& m);

}  // namespace han
