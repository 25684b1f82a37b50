#pragma once
// Optimizers over the flat parameter list: SGD with momentum, Adam and AdamW (PyTorch's
// update rules: L2 weight decay added to the gradient, or AdamW's decoupled decay that
// spares biases), global-norm clipping and
// the learning-rate schedule. They know nothing of the model.
//
// Both walk the parameters in fixed-size pieces spread over `threads`: the update is
// elementwise and the norm sums the pieces in order, so results do not depend on the
// thread count. (The embedding table makes these passes a serial tenth of a training
// step otherwise.) A parameter whose ParamRef lists its `columns` is visited in those
// columns alone: lazy updates (optimizer.lazy_embeddings), where a column the gradient
// skips keeps its weights and its momentum and Adam moments as they were.
#include <memory>
#include <vector>

#include "han/core/config.h"
#include "han/nn/parameters.h"

namespace han {

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  // One update with learning rate lr from the grads in `params`.
  virtual void step(const std::vector<ParamRef>& params, double lr) = 0;
  // Optimizer state tensors (for checkpoints), named after the parameters.
  virtual std::vector<ParamRef> state(const std::vector<ParamRef>& params) = 0;
  virtual long long steps() const = 0;
  virtual void set_steps(long long steps) = 0;
};

std::unique_ptr<Optimizer> make_optimizer(const OptimizerConfig& cfg, int threads = 1);

// Scales all grads so their global L2 norm is at most max_norm (0 = no clipping).
// Returns the norm before clipping (NaN/Inf if any grad is not finite).
double clip_global_norm(const std::vector<ParamRef>& params, double max_norm, int threads = 1);

// Learning rate at `step` (0-based) of `total_steps`: a linear rise over the first
// warmup * total_steps steps, then the schedule over the rest (linear and cosine decay
// to 0 at the end).
double learning_rate(const OptimizerConfig& cfg, long long step, long long total_steps);

}  // namespace han
