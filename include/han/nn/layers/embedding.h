#pragma once
// Word embedding table: id -> column vector. Row 0 (PAD) is never looked up by the
// model (padding never enters the network), so it stays as initialised.
#include <cstdint>
#include <vector>

#include "han/core/random.h"
#include "han/core/tensor_view.h"
#include "han/core/types.h"

namespace han {

struct EmbeddingParams {
  Matrix table;  // (E, V): one column per word id
  // The table left in a mapped model file (prediction; `table` is then empty).
  TensorView stored;
  Index dim() const { return stored.empty() ? table.rows() : stored.rows(); }
  Index words() const { return stored.empty() ? table.cols() : stored.cols(); }
  // Word v's column (checked when stored).
  Eigen::Map<const Vector> column(Index v) const {
    return {stored.empty() ? table.col(v).data() : stored.column(v), dim()};
  }
  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f("table", s.table);
  }
};

// U(-0.1, 0.1): small next to what Adam moves in an epoch (N(0, 1), PyTorch's default,
// trained measurably worse on 20news than the reference HAN).
EmbeddingParams embedding_shape(Index vocab_size, Index dim);  // allocated, not initialised
EmbeddingParams embedding_init(Index vocab_size, Index dim, Rng& rng);

// x (E, T) = columns of the table for `ids` (T).
void embedding_forward(const EmbeddingParams& p, const std::vector<std::int32_t>& ids, Matrix& x);
// Adds dx (E, T) into the table gradient's columns for `ids`.
void embedding_backward(const std::vector<std::int32_t>& ids, const Matrix& dx, EmbeddingParams& g);

}  // namespace han
