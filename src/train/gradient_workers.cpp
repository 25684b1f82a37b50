#include "han/train/gradient_workers.h"

#include <algorithm>
#include <string>

#include "han/core/parallel.h"
#include "han/nn/parameters.h"

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

GradientWorkers::GradientWorkers(const HanParams& params, int threads) : workers_(threads) {
  for (Worker& w : workers_) w.grads = zeros_like(params);
}

double GradientWorkers::compute(const HanParams& params, const ModelConfig& cfg, const std::vector<Batch>& shards,
                                const DropoutPlan& dropout, Index batch_docs, bool train_embeddings,
                                const OutputHead& head, const LossConfig& loss_config) {
  std::vector<Index> first(shards.size() + 1, 0);
  for (std::size_t k = 0; k < shards.size(); ++k) first[k + 1] = first[k] + shards[k].size();
  run_parallel(static_cast<int>(shards.size()), [&](int k) {
    Worker& w = workers_[k];
    DropoutPlan shard_dropout = dropout;
    shard_dropout.first_document = first[k];
    const Matrix logits = han_forward(params, cfg, shards[k], &shard_dropout, w.cache);
    Matrix d_logits;
    w.loss = head_loss(head, loss_config, logits, shards[k], 1.0 / static_cast<double>(batch_docs), d_logits);
    han_backward(params, w.cache, d_logits, w.grads, train_embeddings);
  });
  // Workers beyond the shard count hold stale caches: clear them before the reduction.
  for (std::size_t k = shards.size(); k < workers_.size(); ++k) {
    workers_[k].cache.token_ids.clear();
    workers_[k].loss = 0;
  }
  reduce();
  double loss = 0;
  for (const Worker& w : workers_) loss += w.loss;
  return loss / static_cast<double>(batch_docs);
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

void GradientWorkers::zero() {
  for (Worker& w : workers_) {
    for_dense_pairs(w.grads, w.grads, [](Matrix& m, Matrix&) { m.setZero(); });
    for (std::int32_t id : w.cache.token_ids) w.grads.embedding.table.col(id).setZero();
  }
  // Worker 0 also holds the other workers' embedding columns after the reduction.
  for (std::size_t k = 1; k < workers_.size(); ++k)
    for (std::int32_t id : workers_[k].cache.token_ids) workers_[0].grads.embedding.table.col(id).setZero();
}

}  // namespace han
