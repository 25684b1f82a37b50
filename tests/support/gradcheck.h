#pragma once
// Finite-difference gradient checks for the hand-written backward passes.
// Central differences in float: the loss is accumulated in double and the checked
// entries are spread over each tensor; the tolerance is set for float rounding
// (about 1e-3 absolute on O(1) gradients), far below the size of a wrong term.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <sstream>
#include <string>

#include "han/core/random.h"
#include "han/core/types.h"

namespace han::test {

struct GradCheckResult {
  double max_abs_error = 0;
  int checked = 0;
  int failed = 0;
  std::string worst;
};

// Perturbs up to max_entries entries of `value` and compares the change of loss()
// with `analytic`. `value` is restored afterwards.
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
  for (Index i = (n > 1 ? 1 : 0) % std::max<Index>(n, 1); i < n; i += stride) {
    const Scalar saved = value.data()[i];
    value.data()[i] = saved + static_cast<Scalar>(step);
    const double plus = loss();
    value.data()[i] = saved - static_cast<Scalar>(step);
    const double minus = loss();
    value.data()[i] = saved;
    const double numeric = (plus - minus) / (2 * step);
    const double a = analytic.data()[i];
    const double err = std::abs(numeric - a);
    ++r.checked;
    if (err > abs_tol + rel_tol * std::max(std::abs(numeric), std::abs(a))) {
      ++r.failed;
      if (err > r.max_abs_error) {
        std::ostringstream os;
        os << name << "[" << i << "]: numeric " << numeric << " analytic " << a;
        r.worst = os.str();
      }
    }
    r.max_abs_error = std::max(r.max_abs_error, err);
  }
  INFO(name << ": checked " << r.checked << " max |error| " << r.max_abs_error << " " << r.worst);
  CHECK(r.failed == 0);
  CHECK(r.checked > 0);
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
