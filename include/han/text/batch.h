#pragma once
// A padded batch of documents: the only place masks are made.
// Column s + S*b of the word tensors is sentence s of document b.
#include <cstdint>
#include <vector>

#include "han/text/documents.h"
#include "han/core/types.h"

namespace han {

struct Batch {
  IdMatrix ids;          // (W, S*B) word ids, PAD = 0
  Matrix word_mask;      // (W, S*B) 1 real / 0 padding
  Matrix sentence_mask;  // (S, B)   1 real / 0 padding
  std::vector<std::int32_t> labels;  // (B) -1 where unknown
  std::vector<std::vector<std::int32_t>> label_sets;  // (B) multilabel
  std::vector<float> targets;        // (B) regression
  std::vector<float> weights;        // (B) in the training loss
  std::vector<Index> documents;      // (B) index of each document in its source list
  std::vector<Index> places;         // (B) a shard's: each document's place in its whole batch
  Index real_tokens = 0;
  Index real_sentences = 0;

  Index size() const { return sentence_mask.cols(); }  // B
  Index max_sentences() const { return sentence_mask.rows(); }  // S
  Index max_words() const { return word_mask.rows(); }  // W
  double word_padding_fraction() const;      // 1 - real tokens / (W S B)
  double sentence_padding_fraction() const;  // 1 - real sentences / (S B)
};

// What a batch of docs[indices] holds and its padded size, read from the documents'
// sentence lengths alone (no words): what every rank counts for the whole batch.
struct BatchCounts {
  Index real_tokens = 0, real_sentences = 0;
  Index word_slots = 0, sentence_slots = 0;  // W x S x B and S x B
};
BatchCounts batch_counts(const Documents& docs, const std::vector<Index>& indices);

// docs[indices]'s answers alone (labels, label sets, targets, weights, document indices),
// for a loss that reads no words: no word tensors, and a sentence mask of no rows (B columns).
Batch answers_batch(const Documents& docs, const std::vector<Index>& indices);

// Pads docs[indices] into one batch. S and W are the longest document and sentence
// among them, or at least min_sentences / min_words (used to give shards of one batch
// the batch's padded shape); never less than 1, so a batch of empty documents is valid.
Batch make_batch(const Documents& docs, const std::vector<Index>& indices,
                 Index min_sentences = 1, Index min_words = 1);

// Splits docs[indices] into at most `shards` contiguous parts of about equal real-token
// counts (non-empty unless indices is; then one empty part), each padded to the shape
// the whole batch would have, so every shard computes exactly what the batch would.
std::vector<Batch> make_shards(const Documents& docs, const std::vector<Index>& indices,
                               int shards);

// The documents of docs[indices] in [first, last) (a rank's own share of the list), cut
// as make_shards cuts them into at most `shards` parts, each padded to the shape of the
// whole batch and knowing each document's place in it: a rank reads only its own
// documents' words, and computes what one process computes for them.
std::vector<Batch> make_share_shards(const Documents& docs, const std::vector<Index>& indices, Index first,
                                     Index last, int shards);

}  // namespace han
