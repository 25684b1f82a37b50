// LIBLINEAR behind train/linear_solver.h: the weights it returns solve the problem asked
// (the objective's gradient vanishes there), for both losses, from any start.
#include <catch2/catch.hpp>

#include <cmath>

#include "han/core/random.h"
#include "han/train/linear_solver.h"

using namespace han;

namespace {

// n documents over `features` features, 1-4 nonzeros each, ids ascending; labels from a
// hidden weight vector, with some noise.
struct Problem {
  BagFeatures x;
  std::vector<double> y_class, y_value;
};

Problem random_problem(int n, Index features, std::uint64_t seed) {
  Rng rng(seed);
  Problem p;
  p.x.start.push_back(0);
  for (int i = 0; i < n; ++i) {
    double score = 0;
    for (Index f = 0; f < features; ++f) {
      if (rng.below(3) != 0) continue;
      const float v = static_cast<float>(0.2 + rng.uniform());
      p.x.ids.push_back(static_cast<std::int32_t>(f));
      p.x.values.push_back(v);
      score += (f % 2 == 0 ? 1.0 : -1.0) * v;
    }
    p.x.start.push_back(static_cast<Index>(p.x.ids.size()));
    const double noisy = score + 0.5 * (rng.uniform() - 0.5);
    p.y_class.push_back(noisy > 0 ? 1.0 : -1.0);
    p.y_value.push_back(noisy);
  }
  return p;
}

// The gradient of ½‖w‖² + C Σ loss(y_i, w·x_i) at w (bias last, its feature 1).
std::vector<double> objective_gradient(const Problem& p, const std::vector<double>& y, LinearLoss loss, double C,
                                       const std::vector<double>& w) {
  std::vector<double> g = w;
  for (std::size_t i = 0; i + 1 < p.x.start.size(); ++i) {
    double z = w.back();
    for (Index k = p.x.start[i]; k < p.x.start[i + 1]; ++k) z += w[static_cast<std::size_t>(p.x.ids[k])] * p.x.values[k];
    const double d = loss == LinearLoss::logistic ? -y[i] / (1 + std::exp(y[i] * z)) : 2 * (z - y[i]);
    for (Index k = p.x.start[i]; k < p.x.start[i + 1]; ++k) g[static_cast<std::size_t>(p.x.ids[k])] += C * d * p.x.values[k];
    g.back() += C * d;
  }
  return g;
}

double norm(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x * x;
  return std::sqrt(s);
}

}  // namespace

TEST_CASE("LIBLINEAR's weights minimise the regularised loss, from zero or from another C's solution",
          "[linear_member][liblinear]") {
  const Index features = 8;
  const Problem p = random_problem(300, features, 7);
  const LinearRows rows(p.x, features);
  CHECK(rows.rows() == 300);
  for (const LinearLoss loss : {LinearLoss::logistic, LinearLoss::least_squares}) {
    INFO((loss == LinearLoss::logistic ? "logistic" : "least squares"));
    const std::vector<double>& y = loss == LinearLoss::logistic ? p.y_class : p.y_value;
    const std::vector<double> zero(static_cast<std::size_t>(features) + 1, 0.0);
    const double at_zero = norm(objective_gradient(p, y, loss, 4, zero));
    const std::vector<double> w = fit_linear(rows, y, loss, 4, {});
    REQUIRE(w.size() == zero.size());
    // Its tolerance, 1e-4 of the gradient at zero (LIBLINEAR's default, 0.01, would fail this).
    CHECK(norm(objective_gradient(p, y, loss, 4, w)) < 2e-4 * at_zero);
    // It learned the hidden signs: even features up, odd ones down.
    for (Index f = 0; f < features; ++f) CHECK((f % 2 == 0 ? w[f] > 0 : w[f] < 0));
    // From the solution at another C, the same optimum.
    const std::vector<double> warm = fit_linear(rows, y, loss, 4, fit_linear(rows, y, loss, 1, {}));
    for (std::size_t k = 0; k < w.size(); ++k) CHECK(warm[k] == Approx(w[k]).margin(1e-3 * norm(w)));
    CHECK(fit_linear(rows, y, loss, 4, {}) == w);  // no random order: the same weights
  }
}
