#pragma once
// Temperature scaling (Guo et al. 2017): a model's answers come from its logits divided by
// one scalar T > 0, fitted after training to minimise the negative log-likelihood of
// held-out documents. T > 1 softens over-confident probabilities; the order of the labels
// (so the argmax, and the multi-label decisions up to their thresholds) is unchanged.
#include <cstdint>
#include <vector>

#include "han/core/config_enums.h"
#include "han/core/types.h"
#include "han/nn/head.h"

namespace han {

// Mean negative log-likelihood per document of logits (C, n) divided by T: single-label
// -log softmax(z / T)[gold] (gold[i] holds one label); multi-label the binary
// cross-entropy of sigmoid(z / T) summed over the labels (gold[i]: the label set).
double tempered_nll(Task task, const Matrix& logits, const std::vector<std::vector<std::int32_t>>& gold, double T);

// The T in [kMinTemperature, kMaxTemperature] minimising tempered_nll: a golden-section
// search on log T (the NLL is convex in 1/T, so it has one minimum along log T).
double fit_temperature(Task task, const Matrix& logits, const std::vector<std::vector<std::int32_t>>& gold);

}  // namespace han
