#include "han/nn/regression_loss.h"

#include <cmath>

#include "han/core/error.h"

namespace han {

double regression_loss(const Matrix& predictions, const std::vector<float>& targets, const std::vector<float>& weights,
                       RegressionLoss kind, double delta, double scale, Matrix& d_predictions) {
  HAN_ASSERT(predictions.rows() == 1 && static_cast<Index>(targets.size()) == predictions.cols());
  HAN_ASSERT(weights.empty() || weights.size() == targets.size());
  d_predictions.resize(1, predictions.cols());
  double loss = 0;
  for (Index b = 0; b < predictions.cols(); ++b) {
    const double w = weights.empty() ? 1.0 : weights[b];
    const double r = static_cast<double>(predictions(0, b)) - targets[b];
    double value, slope;
    if (kind == RegressionLoss::mse) {
      value = r * r;
      slope = 2 * r;
    } else if (std::abs(r) <= delta) {
      value = 0.5 * r * r;
      slope = r;
    } else {
      value = delta * (std::abs(r) - 0.5 * delta);
      slope = r > 0 ? delta : -delta;
    }
    loss += w * value;
    d_predictions(0, b) = static_cast<Scalar>(w * scale * slope);
  }
  return loss;
}

}  // namespace han
