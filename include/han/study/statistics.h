#pragma once
// Summary statistics for comparing runs over seeds. A spread or an interval needs at
// least two values: with fewer it is undefined (std::nullopt), never a made-up 0.
#include <optional>
#include <vector>

namespace han {

double mean(const std::vector<double>& x);
// Sample standard deviation (n - 1 in the denominator); undefined for fewer than 2 values.
std::optional<double> sample_sd(const std::vector<double>& x);
// The 0.975 quantile of Student's t with df degrees of freedom (df >= 1).
double t_quantile_975(int df);

struct Interval {
  double low = 0, high = 0;
};

struct PairedDifference {
  double mean_diff = 0;
  std::optional<Interval> ci95;   // 95 % t interval of the mean difference; undefined when n < 2
  int wins = 0, ties = 0, n = 0;  // a[i] better than b[i], a[i] == b[i]
};

// a[i] - b[i] over paired runs (same seed). a[i] wins when it is larger, or smaller with
// lower_is_better (an error such as RMSE); the difference keeps its sign either way.
PairedDifference paired_difference(const std::vector<double>& a, const std::vector<double>& b,
                                   bool lower_is_better = false);

}  // namespace han
