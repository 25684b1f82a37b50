#include "han/train/gradient_workers.h"

#include <algorithm>
#include <chrono>
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

// Calls f(tensor, other) for every tensor pair except the embedding table, which is
// handled column by column (only the columns of words in the batch are non-zero).
template <class F>
void for_dense_pairs(HanParams& a, HanParams& b, F&& f) {
  std::vector<Matrix*> bs;
  HanParams::fields(b, [&](const std::string&, Matrix& m) { bs.push_back(&m); });
  std::size_t i = 0;
  HanParams::fields(a, [&](const std::string& name, Matrix& m) {
    Matrix* other = bs[i++];
    if (name != "embedding.table") f(m, *other);
  });
}

}  // namespace

GradientWorkers::GradientWorkers(const HanParams& params, int threads, AllreduceMode allreduce)
    : workers_(threads), allreduce_(allreduce) {
  for (Worker& w : workers_) w.grads = zeros_like(params);
}

double GradientWorkers::compute(const HanParams& params, const ModelConfig& cfg, const std::vector<Batch>& shards,
                                const DropoutPlan& dropout, Index batch_docs, bool train_embeddings, Collective& job,
                                const OutputHead& head, const LossConfig& loss_config) {
  HAN_ASSERT(shards.size() <= workers_.size());
  run_shards(params, cfg, shards, dropout, batch_docs, train_embeddings, head, loss_config);
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
    const TrainingGemm fast_gemm;  // this step's products on libxsmm (nn/kernels.h)
    Worker& w = workers_[k];
    const Batch& shard = shards[k];
    DropoutPlan shard_dropout = dropout;
    shard_dropout.places = shard.places;
    const Matrix logits = han_forward(params, cfg, shard, &shard_dropout, w.cache);
    Matrix d_logits;
    w.loss = head_loss(head, loss_config, logits, shard, 1.0 / static_cast<double>(batch_docs), d_logits);
    han_backward(params, w.cache, d_logits, w.grads, train_embeddings);
  });
  // Workers beyond the shard count hold stale caches: clear them before the reduction.
  for (std::size_t k = mine; k < workers_.size(); ++k) {
    workers_[k].cache.token_ids.clear();
    workers_[k].loss = 0;
  }
}

// The workers' losses added in global worker order (rank by rank), as one process adds them.
double GradientWorkers::total_loss(Collective& job) const {
  std::vector<double> mine;
  for (const Worker& w : workers_) mine.push_back(w.loss);
  double loss = 0;
  for (double l : job.all_gather(mine)) loss += l;
  return loss;
}

// Sums the workers' gradients into workers_[0], in worker order (deterministic).
void GradientWorkers::reduce() {
  Worker& root = workers_[0];
  for (std::size_t k = 1; k < workers_.size(); ++k) {
    for_dense_pairs(root.grads, workers_[k].grads, [](Matrix& into, Matrix& from) { into += from; });
    for (std::int32_t id : unique_ids(workers_[k].cache.token_ids))
      root.grads.embedding.table.col(id) += workers_[k].grads.embedding.table.col(id);
  }
}

// The sum over the ranks (see the header); every rank ends with the total.
void GradientWorkers::reduce_across(Collective& job, bool train_embeddings) {
  using Clock = std::chrono::steady_clock;
  const auto computed = Clock::now();
  std::vector<std::int32_t> mine;
  for (const Worker& w : workers_) mine.insert(mine.end(), w.cache.token_ids.begin(), w.cache.token_ids.end());
  // (The first collective of the step: it also waits for the slowest rank's shards.)
  job_ids_ = train_embeddings ? unique_ids(job.all_gather(unique_ids(std::move(mine)))) : std::vector<std::int32_t>{};
  if (!train_embeddings) job.any(false);
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
  exchange_.wait_seconds += std::chrono::duration<double>(start - computed).count();
  exchange_.seconds += std::chrono::duration<double>(Clock::now() - start).count();
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
