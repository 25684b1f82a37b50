#pragma once
// Finite-difference gradient checks for the hand-written backward passes.
// Fourth-order central differences, (8 (f(x+h) - f(x-h)) - (f(x+2h) - f(x-2h))) / 12h:
// their error falls as h^4, so a test may take a large step where float rounding in the
// forward pass would otherwise swamp small gradients. The loss is accumulated in double
// and the checked entries are spread over each tensor, element 0 first. An entry passes
// when |numeric - analytic| <= abs_tol + rel_tol * max(|numeric|, |analytic|).
//
// A check has teeth only if the gradients it compares stand well above abs_tol: a wrong
// term in a gradient of 1e-4 passes unseen. So every check also requires the median
// |numeric gradient| of its checked entries to be at least kTeeth x abs_tol: half of
// them are then compared to within 12 % (abs_tol / median + rel_tol) or better. A test
// whose gradients are smaller scales its loss or its inputs until they are not.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "han/core/random.h"
#include "han/core/types.h"

namespace han::test {

constexpr double kTeeth = 10;

struct GradCheckResult {
  double max_abs_error = 0;
  double median_abs_gradient = 0;  // over the checked entries, numeric
  int checked = 0;
  int failed = 0;
  std::string worst;
};

// Perturbs every (size / max_entries)-th entry of `value` from element 0 and compares
// the change of loss() with `analytic`. `value` is restored afterwards.
inline GradCheckResult check_gradient(const std::string& name, Matrix& value,
                                      const Matrix& analytic,
                                      const std::function<double()>& loss,
                                      int max_entries = 24, double step = 5e-3,
                                      double abs_tol = 2e-3, double rel_tol = 2e-2) {
  REQUIRE(value.rows() == analytic.rows());
  REQUIRE(value.cols() == analytic.cols());
  GradCheckResult r;
  const Index n = value.size();
  const Index stride = std::max<Index>(1, n / max_entries);
  std::vector<double> sizes;
  double worst_error = 0;
  for (Index i = 0; i < n; i += stride) {
    const Scalar saved = value.data()[i];
    const auto at = [&](double offset) {
      value.data()[i] = saved + static_cast<Scalar>(offset);
      return loss();
    };
    const double numeric = (8 * (at(step) - at(-step)) - (at(2 * step) - at(-2 * step))) / (12 * step);
    value.data()[i] = saved;
    const double a = analytic.data()[i];
    const double err = std::abs(numeric - a);
    ++r.checked;
    sizes.push_back(std::abs(numeric));
    if (err > abs_tol + rel_tol * std::max(std::abs(numeric), std::abs(a))) {
      ++r.failed;
      if (err > worst_error) {
        worst_error = err;
        std::ostringstream os;
        os << name << "[" << i << "]: numeric " << numeric << " analytic " << a;
        r.worst = os.str();
      }
    }
    r.max_abs_error = std::max(r.max_abs_error, err);
  }
  if (!sizes.empty()) {
    std::nth_element(sizes.begin(), sizes.begin() + sizes.size() / 2, sizes.end());
    r.median_abs_gradient = sizes[sizes.size() / 2];
  }
  INFO(name << ": checked " << r.checked << ", max |error| " << r.max_abs_error << ", median |gradient| "
            << r.median_abs_gradient << " (at least " << kTeeth * abs_tol << " wanted) " << r.worst);
  CHECK(r.checked > 0);
  CHECK(r.failed == 0);
  CHECK(r.median_abs_gradient >= kTeeth * abs_tol);
  return r;
}

inline Matrix random_matrix(Index rows, Index cols, Rng& rng, double scale = 1.0) {
  Matrix m(rows, cols);
  for (Index i = 0; i < m.size(); ++i) m.data()[i] = static_cast<Scalar>(rng.uniform(-scale, scale));
  return m;
}

// sum(R .* out) in double: a loss whose gradient with respect to out is R.
inline double projected(const Matrix& out, const Matrix& R) {
  return (out.cast<double>().array() * R.cast<double>().array()).sum();
}

}  // namespace han::test
