#include "han/nn/layers/bag.h"

#include <algorithm>
#include <cmath>

#include "han/core/error.h"

namespace han {

BagFeatures bag_counts(const std::vector<std::int32_t>& tokens, const std::vector<Index>& doc_tokens) {
  BagFeatures x;
  x.start.reserve(doc_tokens.size() + 1);
  x.start.push_back(0);
  std::vector<std::int32_t> sorted;
  std::size_t at = 0;
  for (Index n : doc_tokens) {
    HAN_ASSERT(at + static_cast<std::size_t>(n) <= tokens.size());
    sorted.assign(tokens.begin() + static_cast<std::ptrdiff_t>(at), tokens.begin() + static_cast<std::ptrdiff_t>(at + n));
    at += static_cast<std::size_t>(n);
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < sorted.size();) {
      std::size_t j = i;
      while (j < sorted.size() && sorted[j] == sorted[i]) ++j;
      x.ids.push_back(sorted[i]);
      x.values.push_back(static_cast<Scalar>(j - i));
      i = j;
    }
    x.start.push_back(static_cast<Index>(x.ids.size()));
  }
  HAN_ASSERT(at == tokens.size());
  return x;
}

void weigh_bag(BagFeatures& x, const Scalar* idf, std::int32_t split) {
  for (std::size_t b = 0; b + 1 < x.start.size(); ++b) {
    const auto first = static_cast<std::size_t>(x.start[b]), last = static_cast<std::size_t>(x.start[b + 1]);
    double norm2[2] = {0, 0};  // of the ids before `split`, and from it on
    for (std::size_t k = first; k < last; ++k) {
      double value = 1.0 + std::log(static_cast<double>(x.values[k]));
      if (idf) value *= idf[x.ids[k]];
      x.values[k] = static_cast<Scalar>(value);
      norm2[x.ids[k] >= split] += value * value;
    }
    double scale[2];
    for (int part = 0; part < 2; ++part) scale[part] = norm2[part] > 0 ? 1.0 / std::sqrt(norm2[part]) : 0.0;
    for (std::size_t k = first; k < last; ++k) x.values[k] = static_cast<Scalar>(x.values[k] * scale[x.ids[k] >= split]);
  }
}

BagFeatures bag_features(const std::vector<std::int32_t>& tokens, const std::vector<Index>& doc_tokens,
                         const Scalar* idf, std::int32_t split) {
  BagFeatures x = bag_counts(tokens, doc_tokens);
  weigh_bag(x, idf, split);
  return x;
}

BagParams bag_init(Index vocab_size, Index outputs) {
  BagParams p;
  p.W = Matrix::Zero(outputs, vocab_size);
  return p;
}

void bag_forward(const Matrix& W, const BagFeatures& x, Matrix& logits) {
  HAN_ASSERT(static_cast<Index>(x.start.size()) == logits.cols() + 1);
  for (Index b = 0; b < logits.cols(); ++b)
    for (Index k = x.start[b]; k < x.start[b + 1]; ++k) logits.col(b) += x.values[k] * W.col(x.ids[k]);
}

void bag_backward(const BagFeatures& x, const Matrix& d_logits, Matrix& dW) {
  for (Index b = 0; b < d_logits.cols(); ++b)
    for (Index k = x.start[b]; k < x.start[b + 1]; ++k) dW.col(x.ids[k]) += x.values[k] * d_logits.col(b);
}

}  // namespace han
