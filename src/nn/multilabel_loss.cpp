#include "han/nn/multilabel_loss.h"

#include <cmath>

#include "han/core/error.h"

namespace han {

Matrix sigmoid(const Matrix& logits) {
  // 1 / (1 + e^-x) written so that neither branch overflows.
  return logits.unaryExpr([](Scalar x) {
    if (x >= 0) return Scalar(1) / (Scalar(1) + std::exp(-x));
    const Scalar e = std::exp(x);
    return e / (Scalar(1) + e);
  });
}

double sigmoid_binary_cross_entropy(const Matrix& logits, const Matrix& targets, const std::vector<float>& weights,
                                    double scale, Matrix& d_logits) {
  HAN_ASSERT(logits.rows() == targets.rows() && logits.cols() == targets.cols());
  HAN_ASSERT(weights.empty() || static_cast<Index>(weights.size()) == logits.cols());
  d_logits = sigmoid(logits) - targets;
  double loss = 0;
  for (Index b = 0; b < logits.cols(); ++b) {
    const double w = weights.empty() ? 1.0 : weights[b];
    double doc = 0;
    for (Index c = 0; c < logits.rows(); ++c) {
      const double x = logits(c, b), y = targets(c, b);
      // -[y log s(x) + (1-y) log(1-s(x))] = max(x, 0) - x y + log(1 + e^-|x|)
      doc += std::max(x, 0.0) - x * y + std::log1p(std::exp(-std::abs(x)));
    }
    loss += w * doc;
    d_logits.col(b) *= static_cast<Scalar>(w * scale);
  }
  return loss;
}

}  // namespace han
