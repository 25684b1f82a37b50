#pragma once
// Affine layer y = W x + b over a batch of columns.
#include <string>

#include "han/core/random.h"
#include "han/core/types.h"

namespace han {

struct LinearParams {
  Matrix W;  // (out, in)
  Matrix b;  // (out, 1)
  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f("W", s.W);
    f("b", s.b);
  }
};

struct LinearCache {
  Matrix x;  // (in, B)
};

// PyTorch's default: U(-1/sqrt(in), 1/sqrt(in)) for W and b.
LinearParams linear_shape(Index in, Index out);  // allocated, not initialised
LinearParams linear_init(Index in, Index out, Rng& rng);
Matrix linear_forward(const LinearParams& p, const Matrix& x, LinearCache& cache);
// Adds the parameter gradients into g; returns d x.
Matrix linear_backward(const LinearParams& p, const LinearCache& cache, const Matrix& dy,
                       LinearParams& g);

// Fills m with U(lo, hi) draws in column-major order.
void fill_uniform(Matrix& m, double lo, double hi, Rng& rng);

}  // namespace han
