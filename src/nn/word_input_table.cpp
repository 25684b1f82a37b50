#include "han/nn/word_input_table.h"

#include <algorithm>

#include "han/core/error.h"
#include "han/core/parallel.h"

namespace han {
namespace {

// Columns are computed in products of exactly this many words (the last one padded with
// zero columns): every word's column then comes out of the same GEMM shape, so its value
// does not depend on which or how many words were new in the same call, and temporary
// memory stays small however large the vocabulary. Small, because a one-line prediction
// pays for the whole chunk: 32 columns cost a dozen words 1/8 of what 256 did.
constexpr Index kChunk = 32;

}  // namespace

WordInputTable::WordInputTable(const HanParams& params)
    : params_(params),
      enabled_(6 * params.word_gru.fwd.hidden() <= 2 * params.embedding.dim()) {
  // Allocated whole but written column by column: pages of unseen words are never touched.
  if (enabled_) {
    side_ = bigru_prediction_input_side(params.word_gru);
    table_.resize(side_.W.rows(), params.embedding.words());
  }
  ready_.assign(static_cast<std::size_t>(enabled_ ? params.embedding.words() : 0), false);
}

void WordInputTable::fill(const Documents& docs, const std::vector<Index>& indices, int threads) {
  if (!enabled_) return;
  std::vector<std::int32_t> missing;
  for (Index i : indices)
    for (const WordIds& sentence : docs[i].sentences)
      for (std::int32_t id : sentence) {
        HAN_ASSERT(id >= 0 && id < table_.cols());
        if (!ready_[id]) missing.push_back(id);
      }
  if (missing.empty()) return;
  std::sort(missing.begin(), missing.end());
  missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
  const EmbeddingParams& embeddings = params_.embedding;  // (E, V)
  const auto chunks = static_cast<Index>((missing.size() + kChunk - 1) / kChunk);
  const int parts = static_cast<int>(std::min<Index>(std::max(threads, 1), chunks));
  // Thread t computes chunks t, t + parts, ...: the same columns for any thread count.
  run_parallel(parts, [&](int t) {
    Matrix x(embeddings.dim(), kChunk);  // (E, kChunk)
    for (Index c = t; c < chunks; c += parts) {
      const std::size_t begin = static_cast<std::size_t>(c * kChunk);
      const Index n = std::min<Index>(kChunk, static_cast<Index>(missing.size() - begin));
      for (Index k = 0; k < n; ++k) x.col(k) = embeddings.column(missing[begin + k]);
      x.rightCols(kChunk - n).setZero();
      const Matrix columns = bigru_prediction_table(side_, x);  // (6P, kChunk)
      for (Index k = 0; k < n; ++k) table_.col(missing[begin + k]) = columns.col(k);
    }
  });
  // Marked only once computed: a failure above leaves no word claiming a column it lacks.
  for (std::int32_t id : missing) ready_[id] = true;
}

}  // namespace han
