#pragma once
// Binary cross-entropy on one sigmoid per label (multi-label classification), computed
// from the logits so that it stays finite and exact for any logit.
#include <vector>

#include "han/core/types.h"

namespace han {

// Column-wise logistic function of logits (C, B): each label's probability.
Matrix sigmoid(const Matrix& logits);

// Sum over documents b (weighted by weights[b]; empty = 1 each) and labels c of
// -[y log s(x) + (1 - y) log(1 - s(x))], with x = logits(c, b) and y = targets(c, b) in {0, 1};
// d_logits (C, B) receives scale * weight * (s(x) - y).
double sigmoid_binary_cross_entropy(const Matrix& logits, const Matrix& targets, const std::vector<float>& weights,
                                    double scale, Matrix& d_logits);

}  // namespace han
