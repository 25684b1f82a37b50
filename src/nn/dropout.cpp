#include "han/nn/dropout.h"

#include "han/core/error.h"
#include "han/text/vocab.h"

namespace han {
namespace {

// Fills column `col` of `mask` (when it is in use) with 0 or keep draws.
void draw_column(Matrix& mask, Index col, double p, Rng& rng) {
  if (mask.size() == 0) return;
  const Scalar keep = static_cast<Scalar>(1.0 / (1.0 - p));
  for (Index i = 0; i < mask.rows(); ++i) mask(i, col) = rng.uniform() < p ? 0 : keep;
}

Matrix mask_for(double p, Index rows, Index cols) { return p > 0 ? Matrix(rows, cols) : Matrix(); }

}  // namespace

DropoutPlan dropout_plan(const ModelConfig& cfg, std::uint64_t seed) {
  DropoutPlan plan;
  plan.word = cfg.word_dropout;
  plan.embedding = cfg.embedding_dropout;
  plan.sentence = cfg.sentence_dropout;
  plan.document = cfg.dropout;
  plan.seed = seed;
  return plan;
}

Matrix dropout_mask(Index rows, Index cols, double p, Rng& rng) {
  Matrix mask(rows, cols);
  for (Index c = 0; c < cols; ++c) draw_column(mask, c, p, rng);
  return mask;
}

DropoutMasks draw_dropout(const DropoutPlan& plan, const ShardShape& shape, std::vector<std::int32_t>& token_ids,
                          Index embedding_dim, Index sentence_dim, Index document_dim) {
  const Index B = static_cast<Index>(shape.doc_lengths.size()), T = static_cast<Index>(token_ids.size());
  Index N = 0;
  for (Index n : shape.doc_lengths) N += n;
  DropoutMasks m{mask_for(plan.embedding, embedding_dim, T), mask_for(plan.sentence, sentence_dim, N),
                 mask_for(plan.document, document_dim, B)};
  Index token = 0, sentence = 0;
  for (Index b = 0; b < B; ++b) {
    // Each document's own stream, drawn in a fixed order: its words, its sentences, itself.
    const Index place = plan.places.empty() ? b : plan.places[static_cast<std::size_t>(b)];
    Rng rng(derive_seed(plan.seed, static_cast<std::uint64_t>(place)));
    for (Index s = 0; s < shape.doc_lengths[b]; ++s) {
      for (Index w = 0; w < shape.sentence_lengths[s + shape.max_sentences * b]; ++w, ++token) {
        if (plan.word > 0 && rng.uniform() < plan.word) token_ids[token] = Vocab::kUnk;
        draw_column(m.embedding, token, plan.embedding, rng);
      }
    }
    for (Index s = 0; s < shape.doc_lengths[b]; ++s, ++sentence) draw_column(m.sentence, sentence, plan.sentence, rng);
    draw_column(m.document, b, plan.document, rng);
  }
  HAN_ASSERT(token == T && sentence == N);
  return m;
}

}  // namespace han
