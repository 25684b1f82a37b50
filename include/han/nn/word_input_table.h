#pragma once
// Prediction's shortcut for the word-level biGRU: its input side W x + b depends only on
// the word, so each word's (6Hw) column is computed once and then looked up for every
// later occurrence, instead of a (6Hw x E) product per token (most of prediction's
// arithmetic). Columns are filled on demand, for the words of the documents about to be
// predicted: a one-line prediction pays for its own words, not the whole vocabulary.
#include <cstdint>
#include <vector>

#include "han/nn/layers/gru.h"
#include "han/nn/model.h"
#include "han/text/documents.h"

namespace han {

class WordInputTable {
 public:
  // Keeps a reference to params (which must outlive it and not change). The table is
  // used only while it is at most twice the embedding table's size (6Hw <= 2E):
  // otherwise prediction embeds and multiplies as training does.
  explicit WordInputTable(const HanParams& params);
  // Computes the columns of every word of docs[indices] not yet in the table, on up to
  // `threads` threads. Not thread-safe: call it before the threads that read the table start.
  void fill(const Documents& docs, const std::vector<Index>& indices, int threads = 1);
  // The (6P, V) table for han_forward (bigru_prediction_table's rows), or null when it is not used.
  const Matrix* table() const { return enabled_ ? &table_ : nullptr; }

 private:
  const HanParams& params_;
  bool enabled_;
  BiGruInputSide side_;      // the word biGRU's input side, stacked and padded once
  Matrix table_;             // (6P, V); column v is valid once ready_[v]
  std::vector<bool> ready_;  // (V)
};

}  // namespace han
