#include "han/nn/layers/embedding.h"

#include "han/nn/layers/linear.h"

namespace han {

EmbeddingParams embedding_shape(Index vocab_size, Index dim) {
  EmbeddingParams p;
  p.table.resize(dim, vocab_size);
  return p;
}

EmbeddingParams embedding_init(Index vocab_size, Index dim, Rng& rng) {
  EmbeddingParams p = embedding_shape(vocab_size, dim);
  fill_uniform(p.table, -0.1, 0.1, rng);
  return p;
}

void embedding_forward(const EmbeddingParams& p, const std::vector<std::int32_t>& ids, Matrix& x) {
  x.resize(p.dim(), static_cast<Index>(ids.size()));
  for (std::size_t t = 0; t < ids.size(); ++t) x.col(static_cast<Index>(t)) = p.column(ids[t]);
}

void embedding_backward(const std::vector<std::int32_t>& ids, const Matrix& dx, EmbeddingParams& g) {
  for (std::size_t t = 0; t < ids.size(); ++t) g.table.col(ids[t]) += dx.col(static_cast<Index>(t));
}

}  // namespace han

