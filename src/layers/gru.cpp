#include "han/layers/gru.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "han/error.h"
#include "han/layers/linear.h"

namespace han {

Packing make_packing(const std::vector<Index>& lengths) {
  Packing pk;
  const Index m = static_cast<Index>(lengths.size());
  std::vector<Index> start(m + 1, 0);
  for (Index i = 0; i < m; ++i) start[i + 1] = start[i] + lengths[i];
  std::vector<Index> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](Index a, Index b) { return lengths[a] > lengths[b]; });
  pk.total = start[m];
  pk.forward_source.resize(pk.total);
  pk.backward_source.resize(pk.total);
  const Index steps = m == 0 ? 0 : lengths[order[0]];
  Index offset = 0, active = m;
  for (Index t = 0; t < steps; ++t) {
    while (active > 0 && lengths[order[active - 1]] <= t) --active;
    pk.offset.push_back(offset);
    pk.active.push_back(active);
    for (Index j = 0; j < active; ++j) {
      const Index s = order[j];
      pk.forward_source[offset + j] = start[s] + t;
      pk.backward_source[offset + j] = start[s] + lengths[s] - 1 - t;
    }
    offset += active;
  }
  HAN_ASSERT(offset == pk.total);
  return pk;
}

GruParams gru_init(Index input_dim, Index hidden, Rng& rng) {
  GruParams p;
  const double k = 1.0 / std::sqrt(static_cast<double>(hidden));
  p.W.resize(3 * hidden, input_dim);
  p.U.resize(3 * hidden, hidden);
  p.b_ih.resize(3 * hidden, 1);
  p.b_hh.resize(3 * hidden, 1);
  GruParams::fields(p, [&](const std::string&, Matrix& m) { fill_uniform(m, -k, k, rng); });
  return p;
}

void gru_forward(const GruParams& p, const Packing& pk, GruCache& c) {
  const Index H = p.hidden(), T = pk.total;
  HAN_ASSERT(c.gx.rows() == 3 * H && c.gx.cols() == T);
  const Index max_active = pk.steps() ? pk.active[0] : 0;
  // For backward every step's gates are kept (H, T); for inference one step's (H, active).
  c.h.resize(H, T);
  for (Matrix* m : {&c.h_prev, &c.r, &c.z, &c.n, &c.gh_n}) m->resize(H, c.keep_for_backward ? T : max_active);
  Matrix gh(3 * H, max_active);  // (3H, active) U h_prev + b_hh for one step
  for (Index t = 0; t < pk.steps(); ++t) {
    const Index o = pk.offset[t], a = pk.active[t];
    const Index k = c.keep_for_backward ? o : 0;  // column of this step in the gate buffers
    auto hp = c.h_prev.middleCols(k, a);
    auto ghs = gh.leftCols(a);
    if (t == 0) {
      hp.setZero();
      ghs.colwise() = p.b_hh.col(0);
    } else {
      hp = c.h.middleCols(pk.offset[t - 1], a);
      ghs.noalias() = p.U * hp;
      ghs.colwise() += p.b_hh.col(0);
    }
    auto gx = c.gx.middleCols(o, a);
    auto r = c.r.middleCols(k, a);
    auto z = c.z.middleCols(k, a);
    auto n = c.n.middleCols(k, a);
    r = (gx.topRows(H) + ghs.topRows(H)).array().logistic();
    z = (gx.middleRows(H, H) + ghs.middleRows(H, H)).array().logistic();
    c.gh_n.middleCols(k, a) = ghs.bottomRows(H);
    n = (gx.bottomRows(H).array() + r.array() * ghs.bottomRows(H).array()).tanh();
    c.h.middleCols(o, a) = (1 - z.array()) * n.array() + z.array() * hp.array();
  }
}

void gru_backward(const GruParams& p, const Packing& pk, GruCache& c, const Matrix& d_h,
                  GruParams& g) {
  HAN_ASSERT(c.keep_for_backward);
  const Index H = p.hidden(), T = pk.total;
  c.dgates.resize(3 * H, T);
  c.dgh.resize(3 * H, T);
  const Index max_active = pk.steps() ? pk.active[0] : 0;
  Matrix carry = Matrix::Zero(H, max_active);  // (H, active) d h flowing back from step t+1
  Matrix dh(H, max_active);                    // (H, active) total d h at step t
  for (Index t = pk.steps() - 1; t >= 0; --t) {
    const Index o = pk.offset[t], a = pk.active[t];
    const Index next_active = t + 1 < pk.steps() ? pk.active[t + 1] : 0;
    auto dht = dh.leftCols(a);
    dht = d_h.middleCols(o, a);
    dht.leftCols(next_active) += carry.leftCols(next_active);
    const auto r = c.r.middleCols(o, a).array();
    const auto z = c.z.middleCols(o, a).array();
    const auto n = c.n.middleCols(o, a).array();
    const auto hp = c.h_prev.middleCols(o, a).array();
    auto dx = c.dgates.middleCols(o, a);
    auto dhh = c.dgh.middleCols(o, a);
    // n path: d n_pre = dh (1 - z) (1 - n^2)
    dx.bottomRows(H) = dht.array() * (1 - z) * (1 - n * n);
    // z path: d z_pre = dh (h_prev - n) z (1 - z)
    dx.middleRows(H, H) = dht.array() * (hp - n) * z * (1 - z);
    // r path: d r_pre = d n_pre gh_n r (1 - r)
    dx.topRows(H) = dx.bottomRows(H).array() * c.gh_n.middleCols(o, a).array() * r * (1 - r);
    dhh.topRows(2 * H) = dx.topRows(2 * H);
    dhh.bottomRows(H) = dx.bottomRows(H).array() * r;
    carry.leftCols(a) = dht.array() * z;
    if (t > 0) carry.leftCols(a).noalias() += p.U.transpose() * dhh;
  }
  g.U.noalias() += c.dgh * c.h_prev.transpose();
  g.b_hh += c.dgh.rowwise().sum();
}

BiGruParams bigru_init(Index input_dim, Index hidden, Rng& rng) {
  BiGruParams p;
  p.fwd = gru_init(input_dim, hidden, rng);
  p.bwd = gru_init(input_dim, hidden, rng);
  return p;
}

namespace {

// [fwd; bwd] stacked row-wise: (6H, D) weights or (6H, 1) biases.
Matrix stacked(const Matrix& fwd, const Matrix& bwd) {
  Matrix out(fwd.rows() + bwd.rows(), fwd.cols());
  out << fwd, bwd;
  return out;
}

}  // namespace

Matrix bigru_forward(const BiGruParams& p, const Matrix& x, const std::vector<Index>& lengths,
                     BiGruCache& c, bool for_backward) {
  c.fwd.keep_for_backward = c.bwd.keep_for_backward = for_backward;
  c.packing = make_packing(lengths);
  const Packing& pk = c.packing;
  HAN_ASSERT(pk.total == x.cols());
  const Index H = p.fwd.hidden(), T = pk.total;
  Matrix g(6 * H, T);  // (6H, T) both directions' input projections, flat order
  g.noalias() = stacked(p.fwd.W, p.bwd.W) * x;
  g.colwise() += stacked(p.fwd.b_ih, p.bwd.b_ih).col(0);
  c.fwd.gx.resize(3 * H, T);
  c.bwd.gx.resize(3 * H, T);
  for (Index k = 0; k < T; ++k) {
    c.fwd.gx.col(k) = g.col(pk.forward_source[k]).head(3 * H);
    c.bwd.gx.col(k) = g.col(pk.backward_source[k]).tail(3 * H);
  }
  gru_forward(p.fwd, pk, c.fwd);
  gru_forward(p.bwd, pk, c.bwd);
  c.fwd.gx = Matrix();  // backward does not need the projections: free them early
  c.bwd.gx = Matrix();
  Matrix out(2 * H, T);
  for (Index k = 0; k < T; ++k) {
    out.col(pk.forward_source[k]).head(H) = c.fwd.h.col(k);
    out.col(pk.backward_source[k]).tail(H) = c.bwd.h.col(k);
  }
  return out;
}

Matrix bigru_backward(const BiGruParams& p, BiGruCache& c, const Matrix& x, const Matrix& d_out,
                      BiGruParams& g) {
  const Packing& pk = c.packing;
  const Index H = p.fwd.hidden(), T = pk.total;
  Matrix d_fwd(H, T), d_bwd(H, T);
  for (Index k = 0; k < T; ++k) {
    d_fwd.col(k) = d_out.col(pk.forward_source[k]).head(H);
    d_bwd.col(k) = d_out.col(pk.backward_source[k]).tail(H);
  }
  gru_backward(p.fwd, pk, c.fwd, d_fwd, g.fwd);
  gru_backward(p.bwd, pk, c.bwd, d_bwd, g.bwd);
  Matrix dg(6 * H, T);  // (6H, T) d input projections, flat order
  for (Index k = 0; k < T; ++k) {
    dg.col(pk.forward_source[k]).head(3 * H) = c.fwd.dgates.col(k);
    dg.col(pk.backward_source[k]).tail(3 * H) = c.bwd.dgates.col(k);
  }
  Matrix dw(6 * H, x.rows());
  dw.noalias() = dg * x.transpose();
  g.fwd.W += dw.topRows(3 * H);
  g.bwd.W += dw.bottomRows(3 * H);
  const Vector db = dg.rowwise().sum();
  g.fwd.b_ih.col(0) += db.head(3 * H);
  g.bwd.b_ih.col(0) += db.tail(3 * H);
  return stacked(p.fwd.W, p.bwd.W).transpose() * dg;
}

}  // namespace han
