#pragma once
// Softmax and softmax cross-entropy over class columns.
#include <cstdint>
#include <vector>

#include "han/core/types.h"

namespace han {

// Column-wise softmax of logits (C, B).
Matrix softmax_columns(const Matrix& logits);

// Sum over the B documents of weights[b] * -log p(label) (weights empty: 1 each); d_logits
// (C, B) receives scale * weight * (p - onehot). Labels must be in [0, C).
double softmax_cross_entropy(const Matrix& logits, const std::vector<std::int32_t>& labels,
                             double scale, Matrix& d_logits, const std::vector<float>& weights = {});

}  // namespace han
