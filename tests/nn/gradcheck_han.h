#pragma once
// Weights, loss scale and step for whole-HAN gradient checks (support/gradcheck.h).
// han_init's weights suit training, not checks: embeddings and attention contexts of
// +-0.1 and a mean loss leave the word level's gradients near 1e-5, far below the checks'
// abs_tol, so a wrong term there would pass. With these weights and loss every checked
// tensor's median gradient clears 10 x abs_tol (the smallest, sentence_attention.b's, by
// 1.7x), and at this step float noise stays below abs_tol / 5.
#include "han/core/random.h"
#include "han/nn/layers/linear.h"
#include "han/nn/model.h"

namespace han::test {

constexpr double kHanLossScale = 100;  // the loss checked: 100 x the batch's mean loss
constexpr double kHanStep = 4e-2;

// Redraws the weights that make han_init's gradients small: embeddings +-1, attention
// contexts +-1, output weights +-2, and GRU weights twice PyTorch's range.
inline void widen_for_gradcheck(HanParams& p, Rng& rng) {
  fill_uniform(p.embedding.table, -1, 1, rng);
  fill_uniform(p.word_attention.ctx, -1, 1, rng);
  fill_uniform(p.sentence_attention.ctx, -1, 1, rng);
  fill_uniform(p.output.W, -2, 2, rng);
  for (BiGruParams* gru : {&p.word_gru, &p.sentence_gru})
    for (GruParams* direction : {&gru->fwd, &gru->bwd}) {
      direction->W *= 2;
      direction->U *= 2;
    }
}

}  // namespace han::test
