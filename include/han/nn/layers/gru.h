#pragma once
// GRU and bidirectional GRU over packed variable-length sequences.
//
// Sequences arrive "flat": the columns of sequence 0, then sequence 1, ... A Packing
// re-orders them time-major with the sequences sorted by length (longest first), so
// step t works on a contiguous prefix of active columns and padding never enters the
// recurrence: cost follows real tokens. The backward direction reads each sequence
// from its own last real token.
//
// Gates are packed [r, z, n] (PyTorch's equations):
//   r = σ(W_r x + b_ir + U_r h + b_hr),  z = σ(W_z x + b_iz + U_z h + b_hz)
//   n = tanh(W_n x + b_in + r ⊙ (U_n h + b_hn)),  h' = (1 − z) ⊙ n + z ⊙ h
#include <cstdint>
#include <vector>

#include "han/core/random.h"
#include "han/core/types.h"

namespace han {

struct Packing {
  std::vector<Index> offset;   // (steps): first packed column of step t
  std::vector<Index> active;   // (steps): sequences still running at step t (non-increasing)
  std::vector<Index> forward_source;   // (T): packed column -> flat column, reading left to right
  std::vector<Index> backward_source;  // (T): packed column -> flat column, right to left
  Index total = 0;                     // T
  Index steps() const { return static_cast<Index>(active.size()); }
};

// lengths: (M) sequence lengths (0 allowed); flat columns of sequence m follow sequence m-1.
Packing make_packing(const std::vector<Index>& lengths);

struct GruParams {
  Matrix W;     // (3H, D) input weights [r; z; n]
  Matrix U;     // (3H, H) recurrent weights
  Matrix b_ih;  // (3H, 1)
  Matrix b_hh;  // (3H, 1)
  Index hidden() const { return U.cols(); }
  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f("W", s.W);
    f("U", s.U);
    f("b_ih", s.b_ih);
    f("b_hh", s.b_hh);
  }
};

// One direction's recurrence. In training its history (h, r, z, n, gh_n) is (H, T) in
// packed order, and backward gives it back once read; it reads its input projections from,
// and writes its states and gradients to, the biGRU's flat buffers, one step's columns at
// a time (no whole-batch gather or scatter pass).
struct GruCache {
  bool keep_for_backward = true;  // false: prediction, which keeps only h
  Matrix h;       // (H, T) output states (a step's h_prev is the first columns of the step before,
                  // 0 at t = 0); in prediction (P, 2 max active): the last two steps' states,
                  // rows padded to P = padded_hidden(H)
  Matrix r, z, n; // (H, T) gate activations
  Matrix gh_n;    // (H, T) U_n h_prev + b_hn
  Matrix dgh;     // (3H, max active) backward: one step's d (U h + b_hh)
  Matrix step;    // one step's scratch: (3H, max active) the gathered input side; in prediction (3H, max active + a few) U h_prev
};

// Where one direction sits in the biGRU's buffers: packed column k is flat column
// source[k] of the states and reads column gate_source[k] of the input gates (the same
// flat column, or a word's column of a lookup table); its 3H gate rows start at gate_row,
// its H state rows at state_row.
struct GruDirection {
  const std::vector<Index>& source;
  const std::vector<Index>& gate_source;
  Index gate_row;
  Index state_row;
};

// PyTorch's default: every tensor U(-1/sqrt(H), 1/sqrt(H)).
GruParams gru_shape(Index input_dim, Index hidden);  // allocated, not initialised
GruParams gru_init(Index input_dim, Index hidden, Rng& rng);
// gates: both directions' input side, read through dir.gate_source: bigru_input_table's
// rows when c.keep_for_backward, bigru_prediction_table's (padded) otherwise.
// Writes this direction's H rows of states (2H, T) flat.
void gru_forward(const GruParams& p, const Packing& pk, const GruDirection& dir, const Matrix& gates,
                 GruCache& c, Matrix& states);
// d_states (2H, T) flat; adds the gradients of U and b_hh into g, and adds d (W x + b_ih) of
// packed column k into this direction's rows of d_gates column dir.gate_source[k] (the
// input weights are the caller's).
void gru_backward(const GruParams& p, const Packing& pk, const GruDirection& dir, GruCache& c,
                  const Matrix& d_states, Matrix& d_gates, GruParams& g);

struct BiGruParams {
  GruParams fwd, bwd;
  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    GruParams::fields(s.fwd, [&](const std::string& n, auto& m) { f("fwd." + n, m); });
    GruParams::fields(s.bwd, [&](const std::string& n, auto& m) { f("bwd." + n, m); });
  }
};

// Both directions' input projections are one product on the flat input:
// [W_fwd; W_bwd] (6H, D) times x (D, T).
struct BiGruCache {
  // Set by the caller before bigru_forward when flat columns share inputs: flat column t
  // reads input column input_of[t] (a word's column, when the inputs are a batch's distinct
  // words). Empty: column t reads input column t.
  std::vector<Index> input_of;
  Packing packing;
  std::vector<Index> gate_source_fwd, gate_source_bwd;  // (T) packed column -> input column, with input_of
  Index input_columns = 0;                              // the inputs' columns, T without input_of
  GruCache fwd, bwd;
  Matrix d_gates;  // (6H, input columns) d input projections: from backward_inputs to backward_weights
};

BiGruParams bigru_shape(Index input_dim, Index hidden);  // allocated, not initialised
BiGruParams bigru_init(Index input_dim, Index hidden, Rng& rng);
// (6H, V) both directions' input side for each column of inputs (D, V):
// [W_fwd; W_bwd] inputs + b_ih + [b_hr; b_hz; 0] (the recurrent r and z biases are folded
// in: they only ever appear summed with the input side).
Matrix bigru_input_table(const BiGruParams& p, const Matrix& inputs);
// The same for prediction, (6P, V): each gate's H rows padded to P = padded_hidden(H) rows
// (kernels/variant.h) with zeros, so its steps run on whole SIMD packets.
Matrix bigru_prediction_table(const BiGruParams& p, const Matrix& inputs);
// bigru_prediction_table's padded weights (6P, D) and biases (6P, 1), for a caller that
// multiplies by them many times (nn/word_input_table.h): stacked and padded once.
struct BiGruInputSide {
  Matrix W, bias;
};
BiGruInputSide bigru_prediction_input_side(const BiGruParams& p);
Matrix bigru_prediction_table(const BiGruInputSide& side, const Matrix& inputs);
// x (D, T) flat, or (D, inputs) with c.input_of; returns (2H, T) flat: rows [0, H) forward
// states, [H, 2H) backward states.
// for_backward = false keeps no per-step gates (prediction): bigru_backward cannot follow.
Matrix bigru_forward(const BiGruParams& p, const Matrix& x, const std::vector<Index>& lengths,
                     BiGruCache& c, bool for_backward = true);
// Prediction when every input is a column of a fixed matrix (word embeddings): with
// table = bigru_prediction_table(p, embeddings), flat column k's input side is table column
// ids[k], a lookup instead of a product. The same states as bigru_forward up to rounding.
Matrix bigru_forward_lookup(const BiGruParams& p, const Matrix& table, const std::vector<std::int32_t>& ids,
                            const std::vector<Index>& lengths, BiGruCache& c);
// x: the input given to bigru_forward (the caller keeps it, so it is not copied);
// d_out (2H, T) flat; adds into g; returns d x, shaped as x (with c.input_of, each input
// column's gradient summed over the flat columns that read it).
Matrix bigru_backward(const BiGruParams& p, BiGruCache& c, const Matrix& x, const Matrix& d_out,
                      BiGruParams& g);
// bigru_backward in two halves, so that a caller can use d x (and the recurrent weights'
// gradients, U and b_hh, final after the first half) while the input weights' product runs:
// backward_inputs adds U and b_hh's gradients and returns d x; backward_weights then adds W
// and b_ih's. Together they add exactly what bigru_backward adds.
Matrix bigru_backward_inputs(const BiGruParams& p, BiGruCache& c, const Matrix& d_out, BiGruParams& g);
void bigru_backward_weights(BiGruCache& c, const Matrix& x, BiGruParams& g);

}  // namespace han
