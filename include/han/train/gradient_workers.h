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
//
// With trainer.allreduce mpi and trainer.overlap (the default), the sum overlaps the
// backward pass, as PyTorch DDP's buckets do: the pass runs in its three stages (nn/model.h),
// and as each stage ends on every worker of a rank its part of the gradient (the upper
// layers; the word GRU's recurrent weights with the embedding columns; the word GRU's input
// weights) is summed over the workers and handed to a nonblocking MPI sum, which the main
// thread keeps moving while the workers run the next stage. The last part, the input
// weights' 0.24 MB at the paper's sizes, is all that is summed after the pass.
#include <chrono>
#include <iterator>
#include <optional>
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
  double compute_seconds = 0;  // this rank's forward and backward passes (its workers' time, as the main thread sees it)
  // Without overlap: the wait for the slowest rank's shards (in the step's first
  // collective), then the sum from there to the total in hand and the loss exchanged.
  // With overlap the slowest rank is waited for while the workers compute, and again at the
  // last part: wait_seconds stays 0 and seconds is the rest of the step, from the workers'
  // last stage to the loss exchanged, with the time between the stages.
  double wait_seconds = 0;
  double seconds = 0;
  bool overlapped = false;  // the sum overlaps the backward pass (trainer.overlap)
  // With overlap: this rank's time in each stage of nn/model.h's backward pass (the
  // first with the forward pass and the loss), from the main thread.
  double stage_seconds[std::size(kBackwardStages)] = {};
};

class GradientWorkers {
 public:
  GradientWorkers(const HanParams& params, int threads, AllreduceMode allreduce = AllreduceMode::mpi,
                  bool overlap = true);

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
    Matrix d_logits;
    double loss = 0;
    std::chrono::steady_clock::time_point stage_done;  // with overlap: when this worker ended its last stage
  };
  void run_shards(const HanParams& params, const ModelConfig& cfg, const std::vector<Batch>& shards,
                  const DropoutPlan& dropout, Index batch_docs, bool train_embeddings,
                  const OutputHead& head, const LossConfig& loss_config);
  static void forward(const HanParams& params, const ModelConfig& cfg, const Batch& shard, const DropoutPlan& dropout,
                      Index batch_docs, const OutputHead& head, const LossConfig& loss_config, Worker& w);
  void clear_idle_workers(std::size_t busy);
  void compute_overlapped(const HanParams& params, const ModelConfig& cfg, const std::vector<Batch>& shards,
                          const DropoutPlan& dropout, Index batch_docs, bool train_embeddings, Collective& job,
                          const OutputHead& head, const LossConfig& loss_config);
  void gather_job_ids(Collective& job, bool train_embeddings);
  void start_part(BackwardStage stage, Collective& job);
  void reduce(std::optional<BackwardStage> stage = std::nullopt);
  void reduce_across(Collective& job, bool train_embeddings);
  void sum_along_chain(Collective& job);
  double total_loss(Collective& job);

  std::vector<Worker> workers_;
  AllreduceMode allreduce_;
  std::vector<std::int32_t> job_ids_;  // the batch's words on every rank (set by reduce_across)
  std::vector<std::int32_t> step_columns_;
  std::vector<Scalar> buffer_;
  std::vector<Scalar> parts_[std::size(kBackwardStages)];  // with overlap: each stage's part, in flight
  ExchangeStats exchange_;
};

}  // namespace han
