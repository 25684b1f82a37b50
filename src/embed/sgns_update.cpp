#include "han/embed/sgns_update.h"

#include <Eigen/Core>
#include <cmath>

namespace han {
namespace {

// u_step += g v and v += g u in one pass over v (Eigen would make two). An element-wise
// loop, so the compiler vectorises it without reordering any sum.
void accumulate_and_update(float* __restrict u_step, float* __restrict v, const float* __restrict u, float g, int dim) {
  for (int i = 0; i < dim; ++i) {
    const float old = v[i];
    u_step[i] += g * old;
    v[i] = old + g * u[i];
  }
}

}  // namespace

void sgns_update(float* input, float* const* targets, int count, int dim, float lr, float* scratch) {
  // The dot product through Eigen: vectorised (a plain float loop's sum is not, without
  // -ffast-math, which han does not use).
  using Map = Eigen::Map<Eigen::VectorXf>;
  Map u(input, dim);
  Map u_step(scratch, dim);
  u_step.setZero();
  for (int j = 0; j < count; ++j) {
    const float label = j == 0 ? 1.0f : 0.0f;
    // d/dx log σ(x) = 1 − σ(x) and d/dx log σ(−x) = −σ(x): both are label − σ(u·v).
    const float g = (label - 1.0f / (1.0f + std::exp(-u.dot(Map(targets[j], dim))))) * lr;
    accumulate_and_update(scratch, targets[j], input, g, dim);
  }
  u += u_step;
}

}  // namespace han
