#include "han/study/statistics.h"

#include <cmath>

#include "han/core/error.h"

namespace han {

double mean(const std::vector<double>& x) {
  if (x.empty()) return 0;
  double s = 0;
  for (double v : x) s += v;
  return s / static_cast<double>(x.size());
}

std::optional<double> sample_sd(const std::vector<double>& x) {
  if (x.size() < 2) return std::nullopt;
  const double m = mean(x);
  double ss = 0;
  for (double v : x) ss += (v - m) * (v - m);
  return std::sqrt(ss / static_cast<double>(x.size() - 1));
}

double t_quantile_975(int df) {
  HAN_ASSERT(df >= 1);
  // Exact table to df = 30, then the normal approximation with the first correction term.
  static const double table[] = {12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
                                 2.2010,  2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
                                 2.0796,  2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423};
  if (df <= 30) return table[df - 1];
  const double z = 1.959964;
  return z + (z * z * z + z) / (4.0 * df);
}

PairedDifference paired_difference(const std::vector<double>& a, const std::vector<double>& b, bool lower_is_better) {
  HAN_ASSERT(a.size() == b.size());
  PairedDifference d;
  std::vector<double> diff;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff.push_back(a[i] - b[i]);
    d.wins += lower_is_better ? a[i] < b[i] : a[i] > b[i];
    d.ties += a[i] == b[i];
  }
  d.n = static_cast<int>(diff.size());
  d.mean_diff = mean(diff);
  if (d.n >= 2) {
    const double half = t_quantile_975(d.n - 1) * *sample_sd(diff) / std::sqrt(static_cast<double>(d.n));
    d.ci95 = Interval{d.mean_diff - half, d.mean_diff + half};
  }
  return d;
}

}  // namespace han
