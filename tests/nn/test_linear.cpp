// The affine layer's hand-written backward pass against finite differences.
#include <catch2/catch.hpp>

#include "han/nn/layers/linear.h"
#include "han/nn/parameters.h"
#include "support/gradcheck.h"

using namespace han;
using han::test::check_gradient;
using han::test::projected;
using han::test::random_matrix;

TEST_CASE("linear layer gradients", "[linear][gradcheck]") {
  Rng rng(2);
  LinearParams p = linear_init(5, 3, rng);
  Matrix x = random_matrix(5, 4, rng);
  const Matrix R = random_matrix(3, 4, rng);
  auto loss = [&] {
    LinearCache c;
    return projected(linear_forward(p, x, c), R);
  };
  LinearCache c;
  linear_forward(p, x, c);
  LinearParams g = zeros_like(p);
  const Matrix dx = linear_backward(p, c, R, g);
  check_gradient("x", x, dx, loss);
  check_gradient("W", p.W, g.W, loss);
  check_gradient("b", p.b, g.b, loss);
}
