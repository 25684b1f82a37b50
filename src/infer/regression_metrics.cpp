#include "han/infer/regression_metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "han/core/error.h"
#include "han/core/json_text.h"
#include "han/text/target_scale.h"

namespace han {

double pearson_correlation(const std::vector<double>& x, const std::vector<double>& y) {
  HAN_ASSERT(x.size() == y.size());
  const double n = static_cast<double>(x.size());
  if (x.size() < 2) return std::numeric_limits<double>::quiet_NaN();
  const double mx = std::accumulate(x.begin(), x.end(), 0.0) / n, my = std::accumulate(y.begin(), y.end(), 0.0) / n;
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (!(sxx > 0 && syy > 0)) return std::numeric_limits<double>::quiet_NaN();
  return sxy / std::sqrt(sxx * syy);
}

std::vector<double> average_ranks(const std::vector<double>& x) {
  std::vector<std::size_t> order(x.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return x[a] < x[b]; });
  std::vector<double> rank(x.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && x[order[j + 1]] == x[order[i]]) ++j;
    const double mean_rank = (static_cast<double>(i) + static_cast<double>(j)) / 2 + 1;
    for (std::size_t k = i; k <= j; ++k) rank[order[k]] = mean_rank;
    i = j + 1;
  }
  return rank;
}

RegressionMetrics compute_regression_metrics(const std::vector<double>& gold, const std::vector<double>& predicted,
                                             const std::vector<double>& seen) {
  HAN_ASSERT(gold.size() == predicted.size());
  RegressionMetrics m;
  m.total = static_cast<std::int64_t>(gold.size());
  const double n = static_cast<double>(std::max<std::size_t>(gold.size(), 1));
  TargetScale rounding;
  rounding.seen = seen;
  double squares = 0, absolute = 0, hits = 0;
  for (std::size_t i = 0; i < gold.size(); ++i) {
    const double r = predicted[i] - gold[i];
    squares += r * r;
    absolute += std::abs(r);
    hits += rounding.nearest_seen(predicted[i]) == gold[i];
  }
  m.rmse = std::sqrt(squares / n);
  m.mae = absolute / n;
  m.pearson = pearson_correlation(gold, predicted);
  m.spearman = pearson_correlation(average_ranks(gold), average_ranks(predicted));
  if (!seen.empty()) m.rounded_accuracy = hits / n;
  return m;
}

nlohmann::json regression_metrics_to_json(const RegressionMetrics& m) {
  return {{"documents", m.total},
          {"rmse", m.rmse},
          {"mae", m.mae},
          {"pearson", finite_or_null(m.pearson)},
          {"spearman", finite_or_null(m.spearman)},
          {"rounded_accuracy", finite_or_null(m.rounded_accuracy)}};
}

std::string regression_metrics_to_text(const RegressionMetrics& m) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "documents %lld  RMSE %.4f  MAE %.4f  Pearson %.4f  Spearman %.4f  accuracy rounded to the nearest "
                "training target %.4f\n",
                static_cast<long long>(m.total), m.rmse, m.mae, m.pearson, m.spearman, m.rounded_accuracy);
  return buf;
}

}  // namespace han
