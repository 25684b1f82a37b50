#include "han/nn/layers/linear.h"

#include <cmath>

namespace han {

void fill_uniform(Matrix& m, double lo, double hi, Rng& rng) {
  for (Index i = 0; i < m.size(); ++i) m.data()[i] = static_cast<Scalar>(rng.uniform(lo, hi));
}

LinearParams linear_shape(Index in, Index out) {
  LinearParams p;
  p.W.resize(out, in);
  p.b.resize(out, 1);
  return p;
}

LinearParams linear_init(Index in, Index out, Rng& rng) {
  LinearParams p = linear_shape(in, out);
  const double k = 1.0 / std::sqrt(static_cast<double>(in));
  fill_uniform(p.W, -k, k, rng);
  fill_uniform(p.b, -k, k, rng);
  return p;
}

Matrix linear_forward(const LinearParams& p, const Matrix& x, LinearCache& cache) {
  cache.x = x;
  Matrix y = p.W * x;
  y.colwise() += p.b.col(0);
  return y;
}

Matrix linear_backward(const LinearParams& p, const LinearCache& cache, const Matrix& dy,
                       LinearParams& g) {
  g.W.noalias() += dy * cache.x.transpose();
  g.b += dy.rowwise().sum();
  return p.W.transpose() * dy;
}

}  // namespace han
