#pragma once
// L2-regularised linear models fitted exactly by LIBLINEAR (Fan et al. 2008, Debian's
// liblinear-dev; the solver under scikit-learn's linear models): logistic regression, and
// least squares (its L2-loss SVR with epsilon 0, which is ridge regression). Both run its
// primal trust-region Newton method, which visits the data in no random order: the same
// problem gives the same weights. Every fit has a bias feature of value 1, regularised
// with the rest (LIBLINEAR's -B 1).
#include <memory>
#include <vector>

#include "han/core/types.h"
#include "han/nn/layers/bag.h"

namespace han {

enum class LinearLoss { logistic, least_squares };

// Documents' sparse features in LIBLINEAR's layout: 16 bytes per nonzero feature of each
// document, plus two per document (the bias and an end marker).
class LinearRows {
 public:
  LinearRows(const BagFeatures& x, Index features);
  ~LinearRows();
  LinearRows(const LinearRows&) = delete;
  LinearRows& operator=(const LinearRows&) = delete;
  Index rows() const;
  Index features() const;  // without the bias
  struct Layout;
  const Layout& layout() const { return *layout_; }

 private:
  std::unique_ptr<Layout> layout_;
};

// The weights minimising ½‖w‖² + C Σ loss(y_i, w·x_i), w = (features..., bias). For
// logistic loss y_i is ±1. `start` (empty, or features + 1 weights) is where the logistic
// solver starts: a solution at a nearby C makes the next one cheap (least squares starts
// from zero, as LIBLINEAR 2.3 allows no other start there).
std::vector<double> fit_linear(const LinearRows& rows, const std::vector<double>& y, LinearLoss loss, double C,
                               const std::vector<double>& start);

}  // namespace han
