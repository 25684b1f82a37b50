#include "han/infer/temperature.h"

#include <algorithm>
#include <cmath>

#include "han/core/error.h"

namespace han {
namespace {

// -log softmax(z / T)[gold], stably.
double softmax_nll(const Eigen::Ref<const Vector>& z, std::int32_t gold, double T) {
  const double top = static_cast<double>(z.maxCoeff()) / T;
  double sum = 0;
  for (Index c = 0; c < z.size(); ++c) sum += std::exp(static_cast<double>(z(c)) / T - top);
  return top + std::log(sum) - static_cast<double>(z(gold)) / T;
}

// Binary cross-entropy of sigmoid(z / T) summed over the labels: softplus(x) - y x, stably.
double sigmoid_nll(const Eigen::Ref<const Vector>& z, const std::vector<std::int32_t>& gold, double T) {
  double sum = 0;
  for (Index c = 0; c < z.size(); ++c) {
    const double x = static_cast<double>(z(c)) / T;
    sum += std::max(x, 0.0) + std::log1p(std::exp(-std::abs(x)));
  }
  for (std::int32_t c : gold) sum -= static_cast<double>(z(c)) / T;
  return sum;
}

}  // namespace

double tempered_nll(Task task, const Matrix& logits, const std::vector<std::vector<std::int32_t>>& gold, double T) {
  HAN_ASSERT(task != Task::regression && static_cast<Index>(gold.size()) == logits.cols() && T > 0);
  if (gold.empty()) return 0;
  double sum = 0;
  for (Index i = 0; i < logits.cols(); ++i) {
    const auto& g = gold[static_cast<std::size_t>(i)];
    if (task == Task::single) {
      HAN_ASSERT(g.size() == 1);
      sum += softmax_nll(logits.col(i), g.front(), T);
    } else {
      sum += sigmoid_nll(logits.col(i), g, T);
    }
  }
  return sum / static_cast<double>(logits.cols());
}

double fit_temperature(Task task, const Matrix& logits, const std::vector<std::vector<std::int32_t>>& gold) {
  const auto nll = [&](double log_t) { return tempered_nll(task, logits, gold, std::exp(log_t)); };
  const double ratio = (std::sqrt(5.0) - 1) / 2;  // the golden section
  double lo = std::log(kMinTemperature), hi = std::log(kMaxTemperature);
  double a = hi - ratio * (hi - lo), b = lo + ratio * (hi - lo);
  double fa = nll(a), fb = nll(b);
  while (hi - lo > 1e-6) {
    if (fa <= fb) {  // the minimum is left of b
      hi = b;
      b = a;
      fb = fa;
      a = hi - ratio * (hi - lo);
      fa = nll(a);
    } else {
      lo = a;
      a = b;
      fa = fb;
      b = lo + ratio * (hi - lo);
      fb = nll(b);
    }
  }
  return std::exp((lo + hi) / 2);
}

}  // namespace han
