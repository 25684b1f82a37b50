#include "han/train/gradient_workers.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <optional>
#include <string>

#include "han/core/parallel.h"
#include "han/nn/kernels.h"
#include "han/nn/parameters.h"
#include "han/train/gradient_buffer.h"

namespace han {
namespace {

std::vector<std::int32_t> unique_ids(std::vector<std::int32_t> ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

// Calls f(tensor, other) for every tensor pair (of the stage's part) except the embedding
// table, which is handled column by column (only the columns of words in the batch are non-zero).
template <class F>
void for_dense_pairs(HanParams& a, HanParams& b, F&& f, std::optional<BackwardStage> stage = std::nullopt) {
  std::vector<Matrix*> bs;
  HanParams::fields(b, [&](const std::string&, Matrix& m) { bs.push_back(&m); });
  std::size_t i = 0;
  HanParams::fields(a, [&](const std::string& name, Matrix& m) {
    Matrix* other = bs[i++];
    if (whole_in_gradient_part(name, stage)) f(m, *other);
  });
}

double seconds_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

}  // namespace

GradientWorkers::GradientWorkers(const HanParams& params, int threads, AllreduceMode allreduce, bool overlap)
    : workers_(threads), allreduce_(allreduce) {
  for (Worker& w : workers_) w.grads = zeros_like(params);
  exchange_.overlapped = overlap && allreduce == AllreduceMode::mpi;
}

double GradientWorkers::compute(const HanParams& params, const ModelConfig& cfg, const std::vector<Batch>& shards,
                                const DropoutPlan& dropout, Index batch_docs, bool train_embeddings, Collective& job,
                                const OutputHead& head, const LossConfig& loss_config) {
  HAN_ASSERT(shards.size() <= workers_.size());
  if (job.ranks() > 1 && exchange_.overlapped) {
    compute_overlapped(params, cfg, shards, dropout, batch_docs, train_embeddings, job, head, loss_config);
    step_columns_ = job_ids_;
    return total_loss(job) / static_cast<double>(batch_docs);
  }
  const auto start = std::chrono::steady_clock::now();
  run_shards(params, cfg, shards, dropout, batch_docs, train_embeddings, head, loss_config);
  exchange_.compute_seconds += seconds_between(start, std::chrono::steady_clock::now());
  if (job.ranks() == 1) {
    reduce();
    std::vector<std::int32_t> ids;
    if (train_embeddings)
      for (const Worker& w : workers_) ids.insert(ids.end(), w.cache.token_ids.begin(), w.cache.token_ids.end());
    step_columns_ = unique_ids(std::move(ids));
  } else {
    reduce_across(job, train_embeddings);
    step_columns_ = job_ids_;
  }
  return total_loss(job) / static_cast<double>(batch_docs);
}

// This rank's workers on its shards, worker k on shard k.
void GradientWorkers::run_shards(const HanParams& params, const ModelConfig& cfg, const std::vector<Batch>& shards,
                                 const DropoutPlan& dropout, Index batch_docs, bool train_embeddings,
                                 const OutputHead& head, const LossConfig& loss_config) {
  const std::size_t mine = shards.size();
  run_parallel(static_cast<int>(mine), [&](int k) {
    const FastGemm fast_gemm;  // this step's products on libxsmm (nn/kernels.h)
    Worker& w = workers_[k];
    forward(params, cfg, shards[k], dropout, batch_docs, head, loss_config, w);
    han_backward(params, w.cache, w.d_logits, w.grads, train_embeddings);
  });
  clear_idle_workers(mine);
}

// The worker's shard forward, its loss and d logits.
void GradientWorkers::forward(const HanParams& params, const ModelConfig& cfg, const Batch& shard,
                              const DropoutPlan& dropout, Index batch_docs, const OutputHead& head,
                              const LossConfig& loss_config, Worker& w) {
  DropoutPlan shard_dropout = dropout;
  shard_dropout.places = shard.places;
  const Matrix logits = han_forward(params, cfg, shard, &shard_dropout, w.cache);
  w.loss = head_loss(head, loss_config, logits, shard, 1.0 / static_cast<double>(batch_docs), w.d_logits);
}

// Workers beyond the shard count hold stale caches: cleared before the reduction.
void GradientWorkers::clear_idle_workers(std::size_t busy) {
  for (std::size_t k = busy; k < workers_.size(); ++k) {
    workers_[k].cache.token_ids.clear();
    workers_[k].loss = 0;
  }
}

namespace {

// Finishes the sums in flight when a stage throws: MPI would otherwise go on writing into
// the parts' buffers after they are freed. Every other rank posts the same sums, so they end.
class SumsFinishedOnUnwind {
 public:
  explicit SumsFinishedOnUnwind(Collective& job) : job_(job) {}
  SumsFinishedOnUnwind(const SumsFinishedOnUnwind&) = delete;
  SumsFinishedOnUnwind& operator=(const SumsFinishedOnUnwind&) = delete;
  ~SumsFinishedOnUnwind() {
    if (std::uncaught_exceptions() <= unwinding_) return;
    try {
      job_.finish_sums();
    } catch (...) {  // (the exception already on its way is the one to report)
    }
  }

 private:
  Collective& job_;
  int unwinding_ = std::uncaught_exceptions();
};

}  // namespace

// trainer.overlap (see the header): the backward pass stage by stage, each stage's part of
// the gradient summed over the ranks while the next stage runs. The workers compute on the
// pool's threads while this (the main) thread keeps MPI moving.
void GradientWorkers::compute_overlapped(const HanParams& params, const ModelConfig& cfg,
                                         const std::vector<Batch>& shards, const DropoutPlan& dropout,
                                         Index batch_docs, bool train_embeddings, Collective& job,
                                         const OutputHead& head, const LossConfig& loss_config) {
  using Clock = std::chrono::steady_clock;
  const std::size_t mine = shards.size();
  SumsFinishedOnUnwind guard(job);
  bool gathered = false;
  // The batch's words on every rank are needed to pack part 2 only: gathered while the
  // workers compute it (the gather waits for the slowest rank's first stage).
  auto gather_once = [&] {
    if (!gathered) gather_job_ids(job, train_embeddings);
    gathered = true;
  };
  double between = 0;  // this thread's time between the stages: reducing, packing, starting
  for (BackwardStage stage : kBackwardStages) {
    const auto began = Clock::now();
    run_parallel_polling(
        static_cast<int>(mine),
        [&](int k) {
          const FastGemm fast_gemm;
          Worker& w = workers_[k];
          if (stage == BackwardStage::upper) forward(params, cfg, shards[k], dropout, batch_docs, head, loss_config, w);
          han_backward_stage(params, w.cache, stage, w.d_logits, w.grads, train_embeddings);
          w.stage_done = Clock::now();
        },
        [&] {
          if (stage == BackwardStage::word_recurrence) gather_once();
          return job.progress();
        });
    // The stage's end is its last worker's (the gather may keep this thread past it).
    auto computed = began;
    for (std::size_t k = 0; k < mine; ++k) computed = std::max(computed, workers_[k].stage_done);
    exchange_.stage_seconds[static_cast<std::size_t>(stage)] += seconds_between(began, computed);
    exchange_.compute_seconds += seconds_between(began, computed);
    if (stage == BackwardStage::upper) clear_idle_workers(mine);
    if (stage == BackwardStage::word_recurrence) gather_once();  // (if the stage ended before the first poll)
    start_part(stage, job);
    between += seconds_between(computed, Clock::now());  // (with the gather's wait past the stage's end)
  }
  const auto last = Clock::now();
  job.finish_sums();
  std::size_t bytes = 0;
  for (BackwardStage stage : kBackwardStages) {
    const std::vector<Scalar>& part = parts_[static_cast<std::size_t>(stage)];
    unpack_gradient(part, job_ids_, Unpack::assign, workers_[0].grads, stage);
    bytes += part.size() * sizeof(Scalar);
  }
  exchange_.steps += 1;
  exchange_.bytes += static_cast<double>(bytes);
  exchange_.seconds += between + seconds_between(last, Clock::now());
}

// The stage's part of the gradient, summed over this rank's workers, handed to the ranks' sum.
void GradientWorkers::start_part(BackwardStage stage, Collective& job) {
  reduce(stage);
  std::vector<Scalar>& part = parts_[static_cast<std::size_t>(stage)];
  const bool has_columns = in_gradient_part(kEmbeddingTable, stage);
  pack_gradient(workers_[0].grads, has_columns ? job_ids_ : std::vector<std::int32_t>{}, part, stage);
  job.start_sum(part.data(), part.size());
}

// The batch's words on every rank, sorted (none when the table is not trained).
void GradientWorkers::gather_job_ids(Collective& job, bool train_embeddings) {
  std::vector<std::int32_t> mine;
  for (const Worker& w : workers_) mine.insert(mine.end(), w.cache.token_ids.begin(), w.cache.token_ids.end());
  job_ids_ = train_embeddings ? unique_ids(job.all_gather(unique_ids(std::move(mine)))) : std::vector<std::int32_t>{};
  if (!train_embeddings) job.any(false);  // (the same calls either way: they wait for the slowest rank)
}

// The workers' losses added in global worker order (rank by rank), as one process adds them.
// With several ranks, its wait counts as the sum's: a rank's sum can be in place while the
// others' are still arriving (over TCP, its own sends still leaving).
double GradientWorkers::total_loss(Collective& job) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<double> mine;
  for (const Worker& w : workers_) mine.push_back(w.loss);
  double loss = 0;
  for (double l : job.all_gather(mine)) loss += l;
  if (job.ranks() > 1) exchange_.seconds += seconds_between(start, std::chrono::steady_clock::now());
  return loss;
}

// Sums the workers' gradients (of the stage's part) into workers_[0], in worker order
// (deterministic).
void GradientWorkers::reduce(std::optional<BackwardStage> stage) {
  Worker& root = workers_[0];
  for (std::size_t k = 1; k < workers_.size(); ++k) {
    for_dense_pairs(root.grads, workers_[k].grads, [](Matrix& into, Matrix& from) { into += from; }, stage);
    if (!in_gradient_part(kEmbeddingTable, stage)) continue;
    for (std::int32_t id : unique_ids(workers_[k].cache.token_ids))
      root.grads.embedding.table.col(id) += workers_[k].grads.embedding.table.col(id);
  }
}

// The sum over the ranks (see the header); every rank ends with the total.
void GradientWorkers::reduce_across(Collective& job, bool train_embeddings) {
  using Clock = std::chrono::steady_clock;
  const auto computed = Clock::now();
  // (The first collective of the step: it also waits for the slowest rank's shards.)
  gather_job_ids(job, train_embeddings);
  const auto start = Clock::now();
  HanParams& root = workers_[0].grads;
  buffer_.resize(gradient_buffer_size(root, job_ids_.size()));
  if (allreduce_ == AllreduceMode::exact) {
    sum_along_chain(job);
  } else {
    reduce();
    pack_gradient(root, job_ids_, buffer_);
    job.sum(buffer_.data(), buffer_.size());
    unpack_gradient(buffer_, job_ids_, Unpack::assign, root);
  }
  exchange_.steps += 1;
  exchange_.bytes += static_cast<double>(buffer_.size() * sizeof(Scalar));
  exchange_.wait_seconds += seconds_between(computed, start);
  exchange_.seconds += seconds_between(start, Clock::now());
}

// trainer.allreduce exact: the single process's order, along the ranks (see the header).
void GradientWorkers::sum_along_chain(Collective& job) {
  HanParams& root = workers_[0].grads;
  const int rank = job.rank(), last = job.ranks() - 1;
  if (rank > 0) {
    job.receive(rank - 1, buffer_.data(), buffer_.size());
    unpack_gradient(buffer_, job_ids_, Unpack::add, root);  // x + y == y + x, bit for bit
  }
  reduce();
  pack_gradient(root, job_ids_, buffer_);
  if (rank < last) job.send(rank + 1, buffer_.data(), buffer_.size());
  job.broadcast(last, buffer_.data(), buffer_.size());
  if (rank < last) unpack_gradient(buffer_, job_ids_, Unpack::assign, root);
}

void GradientWorkers::zero() {
  for (Worker& w : workers_) {
    for_dense_pairs(w.grads, w.grads, [](Matrix& m, Matrix&) { m.setZero(); });
    for (std::int32_t id : w.cache.token_ids) w.grads.embedding.table.col(id).setZero();
  }
  // Worker 0 also holds the other workers' embedding columns after the reduction.
  for (std::size_t k = 1; k < workers_.size(); ++k)
    for (std::int32_t id : workers_[k].cache.token_ids) workers_[0].grads.embedding.table.col(id).setZero();
  // ... and, with several ranks, the columns of every rank's words.
  for (std::int32_t id : job_ids_) workers_[0].grads.embedding.table.col(id).setZero();
}

}  // namespace han
