#pragma once
// The gradient of one training batch, computed by per-thread workers: each takes a shard,
// runs forward and backward into its own buffers, and the buffers are summed in worker
// order, so the sum does not depend on thread timing (same thread count, same bits).
//
// With several ranks (a job under mpirun), each rank's T workers take the rank's shards of
// the batch (train/trainer.cpp says which documents they hold). By default (trainer.allreduce mpi) each rank sums its workers and MPI_Allreduce
// sums the ranks: Open MPI picks its algorithm (ring, recursive doubling, ...) by message
// size and rank count, so the latency does not grow along a chain of N ranks; the sum's
// order is MPI's, fixed for the same ranks and MPI settings, so the same job gives the same
// model, within float rounding of one process. With trainer.allreduce exact the sum runs
// along the ranks in the single process's order: rank r adds the sum of the ranks before it
// to its first worker's gradient, then its other workers', and passes the result on; the
// last rank broadcasts the total. Every addition is the one a single process with N x T
// threads makes, in the same order, so the bits are the same too.
#include <vector>

#include "han/core/config.h"
#include "han/nn/head.h"
#include "han/nn/model.h"
#include "han/text/batch.h"
#include "han/train/collective.h"

namespace han {

// What the ranks exchanged, summed over steps, as this rank saw it.
struct ExchangeStats {
  long long steps = 0;
  double bytes = 0;         // the gradient buffer each rank sums
  double wait_seconds = 0;  // from this rank's shards done to every rank's shards done
  double seconds = 0;       // from then to the total in hand: the gradient sum's own cost
};

class GradientWorkers {
 public:
  GradientWorkers(const HanParams& params, int threads, AllreduceMode allreduce = AllreduceMode::mpi);

  // Adds the gradient of the batch's mean loss (`shards`: this rank's part of the batch of
  // `batch_docs` documents, at most one shard per thread; dropout: the batch's training noise; the
  // head and loss of the task) into grads() on every rank and returns that loss.
  double compute(const HanParams& params, const ModelConfig& cfg, const std::vector<Batch>& shards,
                 const DropoutPlan& dropout, Index batch_docs, bool train_embeddings, Collective& job,
                 const OutputHead& head = {}, const LossConfig& loss_config = {});
  // The summed gradient after compute(); zero before it.
  HanParams& grads() { return workers_[0].grads; }
  // Clears what compute() wrote (only the embedding columns of the batch's words).
  void zero();
  // The embedding columns of the batch's words on every rank, sorted, after compute():
  // the only ones grads() holds non-zero (none when the table is not trained).
  const std::vector<std::int32_t>& step_columns() const { return step_columns_; }
  const ExchangeStats& exchange() const { return exchange_; }

 private:
  struct Worker {
    HanCache cache;
    HanParams grads;
    double loss = 0;
  };
  void run_shards(const HanParams& params, const ModelConfig& cfg, const std::vector<Batch>& shards,
                  const DropoutPlan& dropout, Index batch_docs, bool train_embeddings,
                  const OutputHead& head, const LossConfig& loss_config);
  void reduce();
  void reduce_across(Collective& job, bool train_embeddings);
  void sum_along_chain(Collective& job);
  double total_loss(Collective& job) const;

  std::vector<Worker> workers_;
  AllreduceMode allreduce_;
  std::vector<std::int32_t> job_ids_;  // the batch's words on every rank (set by reduce_across)
  std::vector<std::int32_t> step_columns_;
  std::vector<Scalar> buffer_;
  ExchangeStats exchange_;
};

}  // namespace han
