#include "han/nn/linear_member.h"

#include <algorithm>
#include <cmath>

#include "han/core/error.h"

namespace han {

double equal_linear_weight(int han_members) {
  HAN_ASSERT(han_members >= 1);
  return 1.0 / (han_members + 1);
}

Matrix blend_answers(const Matrix& han_mean, const Matrix& linear, double weight) {
  const Scalar w = static_cast<Scalar>(weight);
  return (1 - w) * han_mean + w * linear;
}

LinearMemberParams linear_member_init(const Documents& train, Index vocab_size, Index outputs) {
  LinearMemberParams p;
  p.W = Matrix::Zero(outputs, vocab_size);
  p.b = Matrix::Zero(outputs, 1);
  std::vector<double> df(static_cast<std::size_t>(vocab_size), 0.0);
  std::vector<std::int32_t> seen;
  for (const DocumentView d : train) {
    seen.clear();
    for (const WordIds sentence : d.sentences) seen.insert(seen.end(), sentence.begin(), sentence.end());
    std::sort(seen.begin(), seen.end());
    seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
    for (std::int32_t id : seen) {
      HAN_ASSERT(id >= 0 && id < vocab_size);
      df[static_cast<std::size_t>(id)] += 1;
    }
  }
  const double n = static_cast<double>(train.size());
  p.idf.resize(vocab_size, 1);
  for (Index id = 0; id < vocab_size; ++id)
    p.idf(id, 0) = static_cast<Scalar>(std::log((1.0 + n) / (1.0 + df[static_cast<std::size_t>(id)])) + 1.0);
  return p;
}

BagFeatures linear_member_features(const LinearMemberParams& p, const Documents& docs,
                                   const std::vector<Index>& indices) {
  std::vector<std::int32_t> tokens;
  std::vector<Index> doc_tokens;
  doc_tokens.reserve(indices.size());
  for (Index i : indices) {
    HAN_ASSERT(i >= 0 && static_cast<std::size_t>(i) < docs.size());
    const DocumentView d = docs[static_cast<std::size_t>(i)];
    const std::size_t before = tokens.size();
    for (const WordIds sentence : d.sentences) tokens.insert(tokens.end(), sentence.begin(), sentence.end());
    doc_tokens.push_back(static_cast<Index>(tokens.size() - before));
  }
  return bag_features(tokens, doc_tokens, p.idf.data());
}

Matrix linear_member_logits(const LinearMemberParams& p, const BagFeatures& x) {
  const Index B = static_cast<Index>(x.start.size()) - 1;
  Matrix logits = p.b.replicate(1, B);
  bag_forward(p.W, x, logits);
  return logits;
}

void linear_member_backward(const BagFeatures& x, const Matrix& d_logits, LinearMemberParams& g) {
  bag_backward(x, d_logits, g.W);
  g.b += d_logits.rowwise().sum();
}

}  // namespace han
