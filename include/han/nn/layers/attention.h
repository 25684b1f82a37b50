#pragma once
// HAN attention pooling over variable-length sequences, with the three treatments
// of padded positions (model.mask):
//   none:     plain softmax over all P padded positions (the common bug);
//   renorm:   softmax, multiplied by the mask, divided by its sum;
//   additive: -10000 added to padded scores before the softmax (BERT's fix).
// u = tanh(W h + b), score = u · ctx, α = weights(score, mask), out = Σ α h.
// A padded position has h = 0 (the packed GRU outputs zero there), so its score is
// the constant ctx · tanh(b): only real positions are ever projected.
// pooling = mean (HN-AVE) uses α = mask / length (none: 1 / P) instead of scores.
#include <string>
#include <vector>

#include "han/core/config.h"
#include "han/core/random.h"
#include "han/core/types.h"

namespace han {

// α (P, M) from scores (P, M) and a 0/1 mask (P, M). A column with no real position
// gets all-zero weights in every mode (never NaN).
Matrix attention_weights(const Matrix& scores, const Matrix& mask, MaskMode mode);
// d scores (P, M) from α and d α: the softmax Jacobian, valid for all three modes
// (renorm and additive are softmaxes over the real positions only).
Matrix attention_weights_backward(const Matrix& alpha, const Matrix& d_alpha);

struct AttentionParams {
  Matrix W;    // (A, D)
  Matrix b;    // (A, 1)
  Matrix ctx;  // (A, 1) the context vector u_w / u_s
  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f("W", s.W);
    f("b", s.b);
    f("ctx", s.ctx);
  }
};

struct AttentionCache {
  std::vector<Index> lengths;  // (M) real positions per sequence (a prefix of each mask column)
  std::vector<Index> start;    // (M) first flat column of each sequence
  Matrix h;                    // (D, T) inputs, flat
  Matrix u;                    // (A, T) tanh(W h + b)
  Matrix pad_u;                // (A, 1) tanh(b): u at a padded position
  Matrix mask;                 // (P, M)
  Matrix alpha;                // (P, M)
  MaskMode mode = MaskMode::renorm;
  Pooling pooling = Pooling::attention;
  bool for_backward = true;  // false: a prediction-mode forward, which keeps no h, u or mask
};

// Glorot-uniform W, zero b, U(-0.1, 0.1) ctx.
AttentionParams attention_shape(Index input_dim, Index attention_dim);  // allocated, not initialised
AttentionParams attention_init(Index input_dim, Index attention_dim, Rng& rng);
// Real positions per column of a 0/1 mask whose ones form a prefix.
std::vector<Index> mask_lengths(const Matrix& mask);
// inputs (D, T): the real positions of the M sequences, flat; mask (P, M). Returns (D, M).
// for_backward keeps the inputs in c.h (moved there: pass an rvalue to spare a copy);
// false (prediction) keeps only lengths, start and alpha in c.
Matrix attention_forward(const AttentionParams& p, Matrix inputs, const Matrix& mask, MaskMode mode,
                         Pooling pooling, AttentionCache& c, bool for_backward = true);
// d_out (D, M); adds into g; returns d h (D, T).
Matrix attention_backward(const AttentionParams& p, const AttentionCache& c, const Matrix& d_out,
                          AttentionParams& g);

}  // namespace han
