#include "han/nn/loss.h"

#include <cmath>

#include "han/core/error.h"

namespace han {

Matrix softmax_columns(const Matrix& logits) {
  Matrix p = logits;
  for (Index b = 0; b < p.cols(); ++b) {
    auto col = p.col(b);
    col = (col.array() - col.maxCoeff()).exp();
    col /= col.sum();
  }
  return p;
}

double softmax_cross_entropy(const Matrix& logits, const std::vector<std::int32_t>& labels,
                             double scale, Matrix& d_logits, const std::vector<float>& weights) {
  HAN_ASSERT(static_cast<Index>(labels.size()) == logits.cols());
  HAN_ASSERT(weights.empty() || weights.size() == labels.size());
  d_logits = softmax_columns(logits);
  double loss = 0;
  for (Index b = 0; b < logits.cols(); ++b) {
    const std::int32_t y = labels[b];
    HAN_ASSERT(y >= 0 && y < logits.rows());
    // log-sum-exp form: exact even when p(y) underflows.
    const Scalar max = logits.col(b).maxCoeff();
    const double lse = max + std::log((logits.col(b).array() - max).exp().sum());
    const double w = weights.empty() ? 1.0 : weights[b];
    loss += w * (lse - logits(y, b));
    d_logits(y, b) -= 1;
    if (w != 1.0) d_logits.col(b) *= static_cast<Scalar>(w);
  }
  d_logits *= static_cast<Scalar>(scale);
  return loss;
}

}  // namespace han
