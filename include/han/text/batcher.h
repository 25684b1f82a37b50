#pragma once
// Splits documents into batches (lists of document indices), seeded per epoch.
//   bucket: shuffle, cut into maxi-batches of maxi_batch * batch_size documents, sort each
//           by sentence count then longest sentence, cut into batches, shuffle batch order;
//   random: shuffle and cut.
// Empty documents (no sentences) carry no signal and are skipped; skipped_empty() counts them.
#include <cstdint>
#include <vector>

#include "han/core/config.h"
#include "han/text/documents.h"
#include "han/core/types.h"

namespace han {

using BatchIndices = std::vector<Index>;

class Batcher {
 public:
  Batcher(const Documents& docs, const BatchingConfig& cfg, std::uint64_t seed);
  std::vector<BatchIndices> epoch(int epoch) const;
  Index skipped_empty() const { return skipped_empty_; }
  Index documents() const { return static_cast<Index>(usable_.size()); }

 private:
  const Documents& docs_;
  BatchingConfig cfg_;
  std::uint64_t seed_;
  std::vector<Index> usable_;
  Index skipped_empty_ = 0;
};

// Batches for inference over every document (empty ones included), sorted by length so
// little padding is computed; callers restore input order through Batch::documents.
std::vector<BatchIndices> inference_batches(const Documents& docs, Index batch_size);

// Batches for evaluating under a batching strategy, every document included: bucket =
// inference_batches; random = a seeded shuffle cut into batches (padding as in training).
std::vector<BatchIndices> evaluation_batches(const Documents& docs, BatchStrategy strategy,
                                             Index batch_size, std::uint64_t seed);

// The batches' documents in [first, last) alone (a rank's share of the list), in their
// order; batches left empty are dropped.
std::vector<BatchIndices> batches_within(const std::vector<BatchIndices>& batches, Index first, Index last);

// Orders indices by (sentence count, longest sentence), both ascending; stable.
void sort_by_length(const Documents& docs, std::vector<Index>& indices);

}  // namespace han
