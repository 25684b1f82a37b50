#pragma once
// Training-time noise at four places of the HAN: words replaced by <unk> (word dropout),
// embedding values, sentence vectors between the two levels, and the document vector.
// Masks are drawn per document from a stream of its own (the batch's seed and the
// document's place in the batch), so they do not depend on how a batch is cut into
// shards: on the thread count, or on the ranks of a distributed run.
#include <cstdint>
#include <vector>

#include "han/core/config.h"
#include "han/core/random.h"
#include "han/core/types.h"

namespace han {

struct DropoutPlan {
  double word = 0;       // probability that a word reads as <unk>
  double embedding = 0;  // dropout on embedding values
  double sentence = 0;   // dropout on sentence vectors (input of the sentence level)
  double document = 0;   // dropout on the document vector (input of the output layer)
  std::uint64_t seed = 0;      // one per batch
  // Each document's place within its batch (Batch::places); empty: 0, 1, 2, ...
  std::vector<Index> places;

  bool any() const { return word > 0 || embedding > 0 || sentence > 0 || document > 0; }
};

// The rates of `cfg` for the batch seeded `seed` (seed set; places left to set).
DropoutPlan dropout_plan(const ModelConfig& cfg, std::uint64_t seed);

// Inverted-dropout masks of one shard: 0 with the rate's probability, else 1/(1-rate);
// an empty matrix where the rate is 0.
struct DropoutMasks {
  Matrix embedding;  // (E, T): one column per real token
  Matrix sentence;   // (2Hw, N): one column per real sentence
  Matrix document;   // (2Hs, B)
};

// The shape of a shard as the forward pass walks it: document b holds sentences
// 0..doc_lengths[b]-1, sentence s of document b has sentence_lengths[s + S*b] words,
// and token_ids lists the words in that order.
struct ShardShape {
  const std::vector<Index>& sentence_lengths;  // (S*B)
  const std::vector<Index>& doc_lengths;       // (B)
  Index max_sentences;                         // S
};

// Draws the shard's masks and replaces dropped words in token_ids by <unk>.
DropoutMasks draw_dropout(const DropoutPlan& plan, const ShardShape& shape, std::vector<std::int32_t>& token_ids,
                          Index embedding_dim, Index sentence_dim, Index document_dim);

// Inverted dropout mask (rows, cols): 0 with probability p, else 1/(1-p).
Matrix dropout_mask(Index rows, Index cols, double p, Rng& rng);

}  // namespace han
