#include "han/nn/layers/gru.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "han/core/error.h"
#include "han/nn/kernels.h"
#include "han/nn/layers/linear.h"

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

GruParams gru_shape(Index input_dim, Index hidden) {
  GruParams p;
  p.W.resize(3 * hidden, input_dim);
  p.U.resize(3 * hidden, hidden);
  p.b_ih.resize(3 * hidden, 1);
  p.b_hh.resize(3 * hidden, 1);
  return p;
}

GruParams gru_init(Index input_dim, Index hidden, Rng& rng) {
  GruParams p = gru_shape(input_dim, hidden);
  const double k = 1.0 / std::sqrt(static_cast<double>(hidden));
  GruParams::fields(p, [&](const std::string&, Matrix& m) { fill_uniform(m, -k, k, rng); });
  return p;
}

namespace {

// Training: every step's gates are kept for backward. A step's previous states are the
// first columns of the step before (longest sequences first), so h is kept and h_prev is not.
void gru_forward_kept(const GruParams& p, const Packing& pk, const GruDirection& dir, const Matrix& gates,
                      GruCache& c, Matrix& states) {
  const Index H = p.hidden(), T = pk.total;
  const Index max_active = pk.steps() ? pk.active[0] : 0;
  HAN_ASSERT(gates.rows() == 6 * H);  // bigru_input_table's rows
  c.h.resize(H, T);
  for (Matrix* m : {&c.r, &c.z, &c.n, &c.gh_n}) m->resize(H, T);
  c.step.resize(3 * H, max_active);
  const Matrix zeros = Matrix::Zero(H, max_active);  // the first step's h_prev
  const auto U_rz = p.U.topRows(2 * H);
  const auto U_n = p.U.bottomRows(H);
  for (Index t = 0; t < pk.steps(); ++t) {
    const Index o = pk.offset[t], a = pk.active[t];
    // (3H, a) this step's input side, then the r, z pre-activations.
    auto g = c.step.topRows(3 * H).leftCols(a);
    for (Index j = 0; j < a; ++j) g.col(j) = gates.col(dir.gate_source[o + j]).segment(dir.gate_row, 3 * H);
    auto gh_n = c.gh_n.middleCols(o, a);
    const Matrix& previous = t == 0 ? zeros : c.h;
    const auto hp = previous.middleCols(t == 0 ? 0 : pk.offset[t - 1], a);
    if (t == 0) {
      gh_n.colwise() = p.b_hh.col(0).tail(H);
    } else {
      gemm(U_rz, Op::plain, hp, Op::plain, g.topRows(2 * H), true);
      gemm(U_n, Op::plain, hp, Op::plain, gh_n);
      gh_n.colwise() += p.b_hh.col(0).tail(H);
    }
    gru_gates(g, gh_n, hp, c.r.middleCols(o, a), c.z.middleCols(o, a), c.n.middleCols(o, a), c.h.middleCols(o, a));
    const auto h = c.h.middleCols(o, a);
    for (Index j = 0; j < a; ++j) states.col(dir.source[o + j]).segment(dir.state_row, H) = h.col(j);
  }
}

// Prediction: each step reads its input side where it lies (padded as bigru_prediction_table
// pads it) and writes its states where they go (gru_step), on rows padded to whole packets
// (the padding rows of h hold values of no meaning, see kernels::GruStepArgs).
// The previous step's states are the first columns of the step before (longest sequences
// first); c.h holds the last two steps' only, so they stay in cache.
void gru_forward_predict(const GruParams& p, const Packing& pk, const GruDirection& dir, const Matrix& gates,
                         GruCache& c, Matrix& states) {
  const Index H = p.hidden(), P = kernels::padded_hidden(H);
  HAN_ASSERT(gates.rows() == 6 * P);  // bigru_prediction_table's rows
  const Index max_active = pk.steps() ? pk.active[0] : 0;
  c.h = Matrix::Zero(P, 2 * max_active);  // even steps' states, then odd steps' (small: zeroed, all finite)
  // U h_prev, (3H, active), and the columns gru_step reads past the last (P - H floats).
  const Index past = (P - H + 3 * H - 1) / (3 * H);
  // Zeroed: the columns a step does not write are read past, and stay finite.
  c.step = Matrix::Zero(3 * H, pk.steps() ? pk.active[0] + past : 0);
  const Matrix b_hn = padded_blocks(p.b_hh.bottomRows(H), H);  // (P, 1)
  kernels::GruStepArgs x;
  x.hidden = H;
  x.table = gates.data();
  x.ld_table = gates.rows();
  x.in_row = dir.gate_row;
  x.b_hn = b_hn.data();
  x.states = states.data();
  x.ld_states = states.rows();
  x.out_row = dir.state_row;
  for (Index t = 0; t < pk.steps(); ++t) {
    const Index o = pk.offset[t], a = pk.active[t];
    x.active = a;
    x.in_cols = dir.gate_source.data() + o;
    x.out_cols = dir.source.data() + o;
    x.h = c.h.data() + (t % 2) * max_active * P;
    x.ldh = P;
    if (t > 0) {
      const auto hp = c.h.middleCols(((t - 1) % 2) * max_active, a);
      gemm(p.U, Op::plain, hp.topRows(H), Op::plain, c.step.leftCols(a));
      x.s = c.step.data();
      x.lds = 3 * H;
      x.h_prev = hp.data();
      x.ldh_prev = P;
    }
    gru_step(x);
  }
}

}  // namespace

void gru_forward(const GruParams& p, const Packing& pk, const GruDirection& dir, const Matrix& gates,
                 GruCache& c, Matrix& states) {
  if (c.keep_for_backward)
    gru_forward_kept(p, pk, dir, gates, c, states);
  else
    gru_forward_predict(p, pk, dir, gates, c, states);
}

void gru_backward(const GruParams& p, const Packing& pk, const GruDirection& dir, GruCache& c,
                  const Matrix& d_states, Matrix& d_gates, GruParams& g) {
  HAN_ASSERT(c.keep_for_backward);
  HAN_ASSERT(c.r.cols() == pk.total);  // the forward's history, not yet given back by a backward
  const Index H = p.hidden();
  const Index max_active = pk.steps() ? pk.active[0] : 0;
  c.dgh.resize(3 * H, max_active);
  Matrix carry = Matrix::Zero(H, max_active);  // (H, active) d h flowing back from step t+1
  Matrix dh(H, max_active);                    // (H, active) total d h at step t
  Matrix dn(H, max_active);                    // (H, active) d n_pre
  const Matrix U_t = p.U.transpose();          // (H, 3H) once, not once per step
  for (Index t = pk.steps() - 1; t >= 0; --t) {
    const Index o = pk.offset[t], a = pk.active[t];
    const Index next_active = t + 1 < pk.steps() ? pk.active[t + 1] : 0;
    auto dht = dh.leftCols(a);
    for (Index j = 0; j < a; ++j) dht.col(j) = d_states.col(dir.source[o + j]).segment(dir.state_row, H);
    dht.leftCols(next_active) += carry.leftCols(next_active);
    const auto r = c.r.middleCols(o, a).array();
    const auto z = c.z.middleCols(o, a).array();
    const auto n = c.n.middleCols(o, a).array();
    auto dnt = dn.leftCols(a);
    auto dhh = c.dgh.leftCols(a);
    // n path: d n_pre = dh (1 - z) (1 - n^2)
    dnt = dht.array() * (1 - z) * (1 - n * n);
    // z path: d z_pre = dh (h_prev - n) z (1 - z), h_prev = 0 at the first step
    if (t > 0)
      dhh.middleRows(H, H) = dht.array() * (c.h.middleCols(pk.offset[t - 1], a).array() - n) * z * (1 - z);
    else
      dhh.middleRows(H, H) = -dht.array() * n * z * (1 - z);
    // r path: d r_pre = d n_pre gh_n r (1 - r)
    dhh.topRows(H) = dnt.array() * c.gh_n.middleCols(o, a).array() * r * (1 - r);
    dhh.bottomRows(H) = dnt.array() * r;
    carry.leftCols(a) = dht.array() * z;
    g.b_hh += dhh.rowwise().sum();
    if (t > 0) {
      const auto hp = c.h.middleCols(pk.offset[t - 1], a);
      gemm(U_t, Op::plain, dhh, Op::plain, carry.leftCols(a), true);
      gemm(dhh, Op::plain, hp, Op::transposed, g.U, true);  // (h_prev = 0 adds nothing at t = 0)
    }
    // The input side's r, z pre-activation gradients equal the recurrent side's.
    for (Index j = 0; j < a; ++j) {
      auto col = d_gates.col(dir.gate_source[o + j]).segment(dir.gate_row, 3 * H);
      col.head(2 * H) += dhh.col(j).head(2 * H);
      col.tail(H) += dnt.col(j);
    }
  }
}

BiGruParams bigru_shape(Index input_dim, Index hidden) {
  BiGruParams p;
  p.fwd = gru_shape(input_dim, hidden);
  p.bwd = gru_shape(input_dim, hidden);
  return p;
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

// [fwd; bwd] input weights (6 block, D) and biases (6 block, 1), the r and z recurrent
// biases folded in: gate g of direction d in rows [(3d + g) block, + H), the rest zero
// (block = H: stacked; block = P: padded for prediction's steps).
std::pair<Matrix, Matrix> stacked_input_side(const BiGruParams& p, Index block) {
  const Index H = p.fwd.hidden();
  HAN_ASSERT(block >= H);
  Matrix W = Matrix::Zero(6 * block, p.fwd.W.cols()), bias = Matrix::Zero(6 * block, 1);
  const GruParams* directions[] = {&p.fwd, &p.bwd};
  for (int d = 0; d < 2; ++d)
    for (int gate = 0; gate < 3; ++gate) {
      const GruParams& g = *directions[d];
      const Index to = (3 * d + gate) * block;
      W.middleRows(to, H) = g.W.middleRows(gate * H, H);
      bias.middleRows(to, H) = g.b_ih.middleRows(gate * H, H);
      if (gate < 2) bias.middleRows(to, H) += g.b_hh.middleRows(gate * H, H);
    }
  return {W, bias};
}

Matrix input_side(const Matrix& W, const Matrix& bias, const Matrix& inputs) {
  Matrix gates(W.rows(), inputs.cols());
  gemm(W, Op::plain, inputs, Op::plain, gates);
  gates.colwise() += bias.col(0);
  return gates;
}

}  // namespace

Matrix bigru_input_table(const BiGruParams& p, const Matrix& inputs) {
  const auto [W, bias] = stacked_input_side(p, p.fwd.hidden());
  return input_side(W, bias, inputs);
}

BiGruInputSide bigru_prediction_input_side(const BiGruParams& p) {
  auto [W, bias] = stacked_input_side(p, kernels::padded_hidden(p.fwd.hidden()));
  return {std::move(W), std::move(bias)};
}

Matrix bigru_prediction_table(const BiGruInputSide& side, const Matrix& inputs) {
  return input_side(side.W, side.bias, inputs);
}

Matrix bigru_prediction_table(const BiGruParams& p, const Matrix& inputs) {
  return bigru_prediction_table(bigru_prediction_input_side(p), inputs);
}

namespace {

// A direction's forward history, given back once its backward has run: the other
// direction's backward then runs with one history less in memory.
void release_history(GruCache& c) {
  for (Matrix* m : {&c.h, &c.r, &c.z, &c.n, &c.gh_n}) *m = Matrix();
}

// Both directions' recurrences; packed column k reads its input side from gates column
// gate_source_{fwd,bwd}[k].
Matrix run_directions(const BiGruParams& p, const Matrix& gates, const std::vector<Index>& gate_source_fwd,
                      const std::vector<Index>& gate_source_bwd, BiGruCache& c) {
  const Packing& pk = c.packing;
  const Index H = p.fwd.hidden();
  const Index bwd_gates = gates.rows() / 2;  // 3H, or 3P padded for prediction
  Matrix out(2 * H, pk.total);
  gru_forward(p.fwd, pk, {pk.forward_source, gate_source_fwd, 0, 0}, gates, c.fwd, out);
  gru_forward(p.bwd, pk, {pk.backward_source, gate_source_bwd, bwd_gates, H}, gates, c.bwd, out);
  return out;
}

// Each packed column's input column, per direction: input_of[flat column].
template <class Map>
void map_sources(const Packing& pk, const Map& input_of, std::vector<Index>& fwd, std::vector<Index>& bwd) {
  fwd.resize(pk.total);
  bwd.resize(pk.total);
  for (Index k = 0; k < pk.total; ++k) {
    fwd[k] = input_of[pk.forward_source[k]];
    bwd[k] = input_of[pk.backward_source[k]];
  }
}

}  // namespace

Matrix bigru_forward(const BiGruParams& p, const Matrix& x, const std::vector<Index>& lengths,
                     BiGruCache& c, bool for_backward) {
  c.fwd.keep_for_backward = c.bwd.keep_for_backward = for_backward;
  c.packing = make_packing(lengths);
  const Packing& pk = c.packing;
  const bool shared = !c.input_of.empty();
  HAN_ASSERT(shared ? static_cast<Index>(c.input_of.size()) == pk.total : pk.total == x.cols());
  c.input_columns = x.cols();
  const Matrix gates = for_backward ? bigru_input_table(p, x) : bigru_prediction_table(p, x);
  if (!shared) return run_directions(p, gates, pk.forward_source, pk.backward_source, c);
  for (Index column : c.input_of) HAN_ASSERT(column >= 0 && column < x.cols());
  map_sources(pk, c.input_of, c.gate_source_fwd, c.gate_source_bwd);
  return run_directions(p, gates, c.gate_source_fwd, c.gate_source_bwd, c);
}

Matrix bigru_forward_lookup(const BiGruParams& p, const Matrix& table, const std::vector<std::int32_t>& ids,
                            const std::vector<Index>& lengths, BiGruCache& c) {
  c.fwd.keep_for_backward = c.bwd.keep_for_backward = false;
  c.packing = make_packing(lengths);
  HAN_ASSERT(c.packing.total == static_cast<Index>(ids.size()));
  c.input_columns = table.cols();
  map_sources(c.packing, ids, c.gate_source_fwd, c.gate_source_bwd);
  return run_directions(p, table, c.gate_source_fwd, c.gate_source_bwd, c);
}

Matrix bigru_backward_inputs(const BiGruParams& p, BiGruCache& c, const Matrix& d_out, BiGruParams& g) {
  const Packing& pk = c.packing;
  const Index H = p.fwd.hidden();
  const bool shared = !c.input_of.empty();
  // Flat columns that share an input add into its column.
  c.d_gates = Matrix::Zero(6 * H, c.input_columns);
  gru_backward(p.fwd, pk, {pk.forward_source, shared ? c.gate_source_fwd : pk.forward_source, 0, 0}, c.fwd, d_out,
               c.d_gates, g.fwd);
  release_history(c.fwd);
  gru_backward(p.bwd, pk, {pk.backward_source, shared ? c.gate_source_bwd : pk.backward_source, 3 * H, H}, c.bwd,
               d_out, c.d_gates, g.bwd);
  release_history(c.bwd);
  Matrix dx(p.fwd.W.cols(), c.input_columns);
  gemm(stacked(p.fwd.W, p.bwd.W), Op::transposed, c.d_gates, Op::plain, dx);
  return dx;
}

void bigru_backward_weights(BiGruCache& c, const Matrix& x, BiGruParams& g) {
  const Index H = g.fwd.hidden();
  Matrix dw(6 * H, x.rows());
  gemm(c.d_gates, Op::plain, x, Op::transposed, dw);
  g.fwd.W += dw.topRows(3 * H);
  g.bwd.W += dw.bottomRows(3 * H);
  const Vector db = c.d_gates.rowwise().sum();
  g.fwd.b_ih.col(0) += db.head(3 * H);
  g.bwd.b_ih.col(0) += db.tail(3 * H);
}

Matrix bigru_backward(const BiGruParams& p, BiGruCache& c, const Matrix& x, const Matrix& d_out,
                      BiGruParams& g) {
  Matrix dx = bigru_backward_inputs(p, c, d_out, g);
  bigru_backward_weights(c, x, g);
  return dx;
}

}  // namespace han
