#pragma once
// The gradient of one training batch, computed by per-thread workers: each takes a shard,
// runs forward and backward into its own buffers, and the buffers are summed in worker
// order, so the sum does not depend on thread timing (same thread count, same bits).
#include <vector>

#include "han/core/config.h"
#include "han/nn/head.h"
#include "han/nn/model.h"
#include "han/text/batch.h"

namespace han {

class GradientWorkers {
 public:
  GradientWorkers(const HanParams& params, int threads);

  // Adds the gradient of the batch's mean loss (shards of one batch of `batch_docs`
  // documents; dropout: the batch's training noise; the head and loss of the task) into
  // grads() and returns that loss.
  double compute(const HanParams& params, const ModelConfig& cfg, const std::vector<Batch>& shards,
                 const DropoutPlan& dropout, Index batch_docs, bool train_embeddings, const OutputHead& head = {},
                 const LossConfig& loss_config = {});
  // The summed gradient after compute(); zero before it.
  HanParams& grads() { return workers_[0].grads; }
  // Clears what compute() wrote (only the embedding columns of the batch's words).
  void zero();

 private:
  struct Worker {
    HanCache cache;
    HanParams grads;
    double loss = 0;
  };
  void reduce();

  std::vector<Worker> workers_;
};

}  // namespace han
