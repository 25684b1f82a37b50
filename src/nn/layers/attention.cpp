#include "han/nn/layers/attention.h"

#include <cmath>
#include <limits>
#include <utility>

#include "han/core/error.h"
#include "han/nn/kernels.h"
#include "han/nn/layers/linear.h"

namespace han {

namespace {
// BERT's additive mask value.
constexpr Scalar kAdditiveMask = -10000.0f;
}  // namespace

Matrix attention_weights(const Matrix& scores, const Matrix& mask, MaskMode mode) {
  HAN_ASSERT(scores.rows() == mask.rows() && scores.cols() == mask.cols());
  const Index P = scores.rows();
  Matrix alpha = Matrix::Zero(P, scores.cols());
  for (Index m = 0; m < scores.cols(); ++m) {
    if (mask.col(m).sum() == 0) continue;  // nothing real: all-zero weights
    // Effective scores: none uses every position; additive pushes padding down by 10000;
    // renorm leaves padding out (= softmax, times the mask, divided by the sum).
    auto effective = [&](Index p) -> Scalar {
      if (mask(p, m) != 0 || mode == MaskMode::none) return scores(p, m);
      return mode == MaskMode::additive ? scores(p, m) + kAdditiveMask : -std::numeric_limits<Scalar>::infinity();
    };
    Scalar max = -std::numeric_limits<Scalar>::infinity();
    for (Index p = 0; p < P; ++p) max = std::max(max, effective(p));
    // Scalar std::exp: it underflows exp(-10000) to exactly 0, as float arithmetic should
    // (Eigen's vectorised exp clamps its argument and would leave a denormal).
    double sum = 0;
    for (Index p = 0; p < P; ++p) sum += alpha(p, m) = std::exp(effective(p) - max);
    alpha.col(m) /= static_cast<Scalar>(sum);
  }
  return alpha;
}

Matrix attention_weights_backward(const Matrix& alpha, const Matrix& d_alpha) {
  const RowVector dot = (alpha.array() * d_alpha.array()).colwise().sum();
  return alpha.array() * (d_alpha.array().rowwise() - dot.array());
}

AttentionParams attention_shape(Index input_dim, Index attention_dim) {
  AttentionParams p;
  p.W.resize(attention_dim, input_dim);
  p.b.resize(attention_dim, 1);
  p.ctx.resize(attention_dim, 1);
  return p;
}

AttentionParams attention_init(Index input_dim, Index attention_dim, Rng& rng) {
  AttentionParams p = attention_shape(input_dim, attention_dim);
  const double k = std::sqrt(6.0 / static_cast<double>(input_dim + attention_dim));
  fill_uniform(p.W, -k, k, rng);
  p.b.setZero();
  fill_uniform(p.ctx, -0.1, 0.1, rng);
  return p;
}

std::vector<Index> mask_lengths(const Matrix& mask) {
  std::vector<Index> lengths(mask.cols());
  for (Index m = 0; m < mask.cols(); ++m) {
    Index len = 0;
    while (len < mask.rows() && mask(len, m) != 0) ++len;
    HAN_ASSERT(mask.col(m).tail(mask.rows() - len).isZero());
    lengths[m] = len;
  }
  return lengths;
}

namespace {

// Columns of u per product in prediction: a tile of u stays in L1 from its product through
// its tanh to its scores.
constexpr Index kScoreTile = 64;

// ctx · tanh(W h + b) for every column of h. Training keeps u (A, T) for backward; prediction
// computes it a tile at a time and keeps none.
RowVector real_scores(const AttentionParams& p, const Matrix& h, bool for_backward, AttentionCache& c) {
  const Index A = p.W.rows(), T = h.cols();
  if (for_backward) {
    c.u.resize(A, T);
    gemm(p.W, Op::plain, h, Op::plain, c.u);
    bias_tanh(c.u, p.b);
    return p.ctx.col(0).transpose() * c.u;
  }
  c.u.resize(0, 0);
  // A padded to whole SIMD packets with zero rows (tanh(0) times a zero ctx adds nothing), so
  // the tanh runs on whole packets.
  const Matrix W = padded_blocks(p.W, A), b = padded_blocks(p.b, A), ctx = padded_blocks(p.ctx, A);
  RowVector scores(T);
  Matrix u(W.rows(), std::min(kScoreTile, T));
  for (Index begin = 0; begin < T; begin += kScoreTile) {
    const Index n = std::min(kScoreTile, T - begin);
    auto tile = u.leftCols(n);
    gemm(W, Op::plain, h.middleCols(begin, n), Op::plain, tile);
    bias_tanh(tile, b);
    scores.segment(begin, n).noalias() = ctx.col(0).transpose() * tile;
  }
  return scores;
}

}  // namespace

Matrix attention_forward(const AttentionParams& p, Matrix inputs, const Matrix& mask, MaskMode mode,
                         Pooling pooling, AttentionCache& c, bool for_backward) {
  const Index P = mask.rows(), M = mask.cols();
  c.lengths = mask_lengths(mask);
  c.start.resize(M);
  Index total = 0;
  for (Index m = 0; m < M; ++m) {
    c.start[m] = total;
    total += c.lengths[m];
  }
  HAN_ASSERT(total == inputs.cols());
  if (for_backward) {
    c.h = std::move(inputs);  // kept for backward, not copied
    c.mask = mask;
  } else {
    c.h.resize(0, 0);
    c.mask.resize(0, 0);
  }
  const Matrix& h = for_backward ? c.h : inputs;
  c.mode = mode;
  c.pooling = pooling;
  c.for_backward = for_backward;
  if (pooling == Pooling::attention) {
    const RowVector scores_of_real = real_scores(p, h, for_backward, c);  // (1, T)
    c.pad_u = p.b.array().tanh();
    const Scalar pad_score = p.ctx.col(0).dot(c.pad_u.col(0));
    Matrix scores = Matrix::Constant(P, M, pad_score);
    for (Index m = 0; m < M; ++m)
      scores.col(m).head(c.lengths[m]) = scores_of_real.segment(c.start[m], c.lengths[m]).transpose();
    c.alpha = attention_weights(scores, mask, mode);
  } else {
    c.alpha = Matrix::Zero(P, M);
    for (Index m = 0; m < M; ++m) {
      if (c.lengths[m] == 0) continue;
      // none treats padding as real: the mean runs over all P positions.
      const Index n = mode == MaskMode::none ? P : c.lengths[m];
      c.alpha.col(m).head(n).setConstant(Scalar(1) / static_cast<Scalar>(n));
    }
  }
  Matrix out = Matrix::Zero(h.rows(), M);
  for (Index m = 0; m < M; ++m)
    out.col(m).noalias() = h.middleCols(c.start[m], c.lengths[m]) * c.alpha.col(m).head(c.lengths[m]);
  return out;
}

Matrix attention_backward(const AttentionParams& p, const AttentionCache& c, const Matrix& d_out,
                          AttentionParams& g) {
  HAN_ASSERT(c.for_backward);
  const Index P = c.mask.rows(), M = c.mask.cols();
  Matrix dh(c.h.rows(), c.h.cols());
  for (Index m = 0; m < M; ++m)
    dh.middleCols(c.start[m], c.lengths[m]).noalias() =
        d_out.col(m) * c.alpha.col(m).head(c.lengths[m]).transpose();
  if (c.pooling == Pooling::mean) return dh;

  // d α at real positions is d_out · h; at padded ones h = 0, so it is 0.
  Matrix d_alpha = Matrix::Zero(P, M);
  for (Index m = 0; m < M; ++m)
    d_alpha.col(m).head(c.lengths[m]).noalias() =
        c.h.middleCols(c.start[m], c.lengths[m]).transpose() * d_out.col(m);
  const Matrix d_scores = attention_weights_backward(c.alpha, d_alpha);

  RowVector d_real(c.h.cols());  // (1, T) d score at real positions
  Scalar d_pad = 0;              // summed d score over padded positions
  for (Index m = 0; m < M; ++m) {
    d_real.segment(c.start[m], c.lengths[m]) = d_scores.col(m).head(c.lengths[m]).transpose();
    d_pad += d_scores.col(m).tail(P - c.lengths[m]).sum();
  }
  // score = ctx · u, u = tanh(W h + b)
  g.ctx.col(0).noalias() += c.u * d_real.transpose();
  const Matrix d_pre = (p.ctx.col(0) * d_real).array() * (1 - c.u.array().square());  // (A, T)
  gemm(d_pre, Op::plain, c.h, Op::transposed, g.W, true);
  g.b.col(0) += d_pre.rowwise().sum();
  gemm(p.W, Op::transposed, d_pre, Op::plain, dh, true);
  // Padded positions: score = ctx · tanh(b).
  if (d_pad != 0) {
    g.ctx += d_pad * c.pad_u;
    g.b.array() += d_pad * p.ctx.array() * (1 - c.pad_u.array().square());
  }
  return dh;
}

}  // namespace han
