#pragma once
// The bag-of-words term (model.bag = words): a linear function of each document's word
// counts added to the HAN's logits, the "wide" half of a wide & deep model. The HAN reads
// words in order but forgets rare ones; a linear model over the bag keeps every word's own
// weight, which is what a TF-IDF linear classifier wins on. Features are sublinear term
// frequencies, 1 + ln(count), scaled to unit L2 norm per document (PAD never occurs; <unk>
// counts as a word).
#include <cstdint>
#include <vector>

#include "han/core/types.h"

namespace han {

struct BagParams {
  Matrix W;  // (C, V): one column of logit weights per vocabulary word; (C, 0) when off
  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f("W", s.W);
  }
};

// The documents' features, sparse: document b's words are ids[start[b] .. start[b+1]),
// each once, with its feature value.
struct BagFeatures {
  std::vector<Index> start;  // (B + 1)
  std::vector<std::int32_t> ids;
  std::vector<Scalar> values;
};

// tokens: the batch's token ids, document by document; doc_tokens: how many each has.
// With `idf` (one weight per vocabulary id), each word's value is multiplied by its weight
// before the normalisation (TF-IDF; the linear member's features, nn/linear_member.h).
// The ids from `split` on are scaled to unit norm apart from those before it (the member's
// character n-grams apart from its words).
BagFeatures bag_features(const std::vector<std::int32_t>& tokens, const std::vector<Index>& doc_tokens,
                         const Scalar* idf = nullptr, std::int32_t split = INT32_MAX);
// bag_features in two steps: each document's distinct ids with their counts as values...
BagFeatures bag_counts(const std::vector<std::int32_t>& tokens, const std::vector<Index>& doc_tokens);
// ...then the counts of bag_counts made the features bag_features gives (in place).
void weigh_bag(BagFeatures& x, const Scalar* idf = nullptr, std::int32_t split = INT32_MAX);
// Zeros: a linear term starts from "no opinion" (its loss is convex in W).
BagParams bag_init(Index vocab_size, Index outputs);
// logits (C, B) += W x_b for every document b (W: (C, V)).
void bag_forward(const Matrix& W, const BagFeatures& x, Matrix& logits);
// dW += d_logits x^T, column by column of the words present.
void bag_backward(const BagFeatures& x, const Matrix& d_logits, Matrix& dW);

}  // namespace han
