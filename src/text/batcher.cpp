#include "han/text/batcher.h"

#include <algorithm>

#include "han/core/random.h"

namespace han {
namespace {

std::vector<BatchIndices> cut(const std::vector<Index>& order, Index begin, Index end, Index size) {
  std::vector<BatchIndices> out;
  for (Index i = begin; i < end; i += size)
    out.emplace_back(order.begin() + i, order.begin() + std::min(end, i + size));
  return out;
}

}  // namespace

void sort_by_length(const Documents& docs, std::vector<Index>& indices) {
  const auto key = [&](Index i) {
    const DocumentShape& d = docs.shape(static_cast<std::size_t>(i));
    return std::pair{d.sentences, d.longest};
  };
  std::stable_sort(indices.begin(), indices.end(), [&](Index a, Index b) { return key(a) < key(b); });
}

Batcher::Batcher(const Documents& docs, const BatchingConfig& cfg, std::uint64_t seed)
    : docs_(docs), cfg_(cfg), seed_(seed) {
  for (Index i = 0; i < static_cast<Index>(docs.size()); ++i) {
    if (docs.shape(static_cast<std::size_t>(i)).sentences == 0)
      ++skipped_empty_;
    else
      usable_.push_back(i);
  }
}

std::vector<BatchIndices> Batcher::epoch(int epoch) const {
  Rng rng(derive_seed(seed_, 0xBA7C4, static_cast<std::uint64_t>(epoch)));
  std::vector<Index> order = usable_;
  rng.shuffle(order);
  const Index n = static_cast<Index>(order.size()), size = cfg_.batch_size;
  if (cfg_.strategy == BatchStrategy::random) return cut(order, 0, n, size);
  std::vector<BatchIndices> batches;
  const Index pool = size * cfg_.maxi_batch;
  for (Index begin = 0; begin < n; begin += pool) {
    const Index end = std::min(n, begin + pool);
    std::vector<Index> part(order.begin() + begin, order.begin() + end);
    sort_by_length(docs_, part);
    for (BatchIndices& b : cut(part, 0, end - begin, size)) batches.push_back(std::move(b));
  }
  rng.shuffle(batches);
  return batches;
}

std::vector<BatchIndices> inference_batches(const Documents& docs, Index batch_size) {
  std::vector<Index> order(docs.size());
  for (Index i = 0; i < static_cast<Index>(docs.size()); ++i) order[i] = i;
  sort_by_length(docs, order);
  return cut(order, 0, static_cast<Index>(order.size()), batch_size);
}

std::vector<BatchIndices> evaluation_batches(const Documents& docs, BatchStrategy strategy,
                                             Index batch_size, std::uint64_t seed) {
  if (strategy == BatchStrategy::bucket) return inference_batches(docs, batch_size);
  std::vector<Index> order(docs.size());
  for (Index i = 0; i < static_cast<Index>(docs.size()); ++i) order[i] = i;
  Rng rng(seed);
  rng.shuffle(order);
  return cut(order, 0, static_cast<Index>(order.size()), batch_size);
}

std::vector<BatchIndices> batches_within(const std::vector<BatchIndices>& batches, Index first, Index last) {
  std::vector<BatchIndices> out;
  for (const BatchIndices& batch : batches) {
    BatchIndices mine;
    for (Index i : batch)
      if (i >= first && i < last) mine.push_back(i);
    if (!mine.empty()) out.push_back(std::move(mine));
  }
  return out;
}

}  // namespace han
