#pragma once
// The loss of a linear output that predicts one number per document: squared error or
// Huber (squared within delta, linear beyond, so outliers pull less).
#include <vector>

#include "han/core/config_enums.h"
#include "han/core/types.h"

namespace han {

// Sum over documents b of weights[b] (empty = 1 each) times the loss of
// r = predictions(0, b) - targets[b]: mse r^2; huber r^2 / 2 within |r| <= delta, else
// delta (|r| - delta / 2). d_predictions (1, B) receives scale * weight * dloss/dr.
double regression_loss(const Matrix& predictions, const std::vector<float>& targets, const std::vector<float>& weights,
                       RegressionLoss kind, double delta, double scale, Matrix& d_predictions);

}  // namespace han
