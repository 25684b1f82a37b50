#pragma once
// The HAN: word level (embedding -> word biGRU -> word attention -> sentence vectors)
// then sentence level (sentence biGRU -> sentence attention -> document vector)
// -> linear -> logits (+ the bag-of-words term, nn/layers/bag.h, with model.bag = words),
// with dropout (nn/dropout.h) in training. Only real tokens and real sentences are
// computed; padding reaches the attention softmax alone, as model.mask dictates.
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "han/text/batch.h"
#include "han/core/config.h"
#include "han/nn/dropout.h"
#include "han/nn/layers/attention.h"
#include "han/nn/layers/bag.h"
#include "han/nn/layers/embedding.h"
#include "han/nn/layers/gru.h"
#include "han/nn/layers/linear.h"
#include "han/core/random.h"

namespace han {

struct HanParams {
  EmbeddingParams embedding;
  BiGruParams word_gru;
  AttentionParams word_attention;
  BiGruParams sentence_gru;
  AttentionParams sentence_attention;
  LinearParams output;
  BagParams bag;  // W is (C, 0) without model.bag: no tensor is stored then

  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    visit_prefixed(s.embedding, "embedding.", f);
    visit_prefixed(s.word_gru, "word_gru.", f);
    visit_prefixed(s.word_attention, "word_attention.", f);
    visit_prefixed(s.sentence_gru, "sentence_gru.", f);
    visit_prefixed(s.sentence_attention, "sentence_attention.", f);
    visit_prefixed(s.output, "output.", f);
    visit_prefixed(s.bag, "bag.", f);
  }

 private:
  template <class P, class F>
  static void visit_prefixed(P& p, const std::string& prefix, F& f) {
    std::remove_const_t<P>::fields(p, [&](const std::string& n, auto& m) { f(prefix + n, m); });
  }
};

// Every tensor allocated with its shape but not initialised: a model file's tensors
// replace them, so loading skips drawing millions of random numbers.
HanParams han_shape(const ModelConfig& cfg, Index vocab_size, Index classes);
HanParams han_init(const ModelConfig& cfg, Index vocab_size, Index classes, Rng& rng);
// The number of parameters han_init would allocate, computed without allocating
// (a model file is checked against it before its config is trusted).
double han_parameter_count(const ModelConfig& cfg, Index vocab_size, Index classes);

// The embedding table's name in HanParams::fields: the one tensor trained and sent column
// by column (only the batch's words' columns change).
inline constexpr const char* kEmbeddingTable = "embedding.table";

// Everything forward keeps for backward (and for explanations).
struct HanCache {
  std::vector<std::int32_t> token_ids;         // (T) real tokens, sentence by sentence
  DropoutMasks dropout;                        // the training masks in use (empty: none)
  std::vector<std::int32_t> input_ids;         // the word of each column of x: the shard's distinct words,
                                               // or token_ids under embedding dropout (a mask per token)
  Matrix x;                                    // (E, input_ids) embeddings, after dropout (empty with a word input table)
  BiGruCache word_gru;
  AttentionCache word_attention;               // alpha: (W, S*B) word weights
  std::vector<Index> sentence_columns;         // (N) column s + S*b of each real sentence
  Index padded_sentences = 0;                  // S*B
  Matrix sentence_inputs;                      // (2Hw, N) sentence vectors of real sentences, after dropout
  BiGruCache sentence_gru;
  AttentionCache sentence_attention;           // alpha: (S, B) sentence weights
  LinearCache output;
  BagFeatures bag;                             // with model.bag
  Matrix d_word_states;                        // (2Hw, T) from backward stage upper to word_recurrence
  int next_stage = 0;                          // the backward stage due next (han_forward: the first)
};

// logits (C, B). dropout: the shard's training noise, or null for none.
// for_backward = false (prediction) keeps no GRU gate history; attention weights are kept.
// word_inputs: a WordInputTable's table holding every word of the batch (prediction only),
// or null to embed and project.
Matrix han_forward(const HanParams& p, const ModelConfig& cfg, const Batch& batch,
                   const DropoutPlan* dropout, HanCache& c, bool for_backward = true,
                   const Matrix* word_inputs = nullptr);
// Adds the gradient of the loss into g given d logits (C, B). With
// train_embeddings = false the embedding table's gradient is left untouched. Backward
// consumes c: it gives back the memory of what it has read, so it runs once per han_forward.
void han_backward(const HanParams& p, HanCache& c, const Matrix& d_logits, HanParams& g,
                  bool train_embeddings = true);

// han_backward in three stages, run in this order. When a stage returns, the gradients of
// its tensors (backward_stage_of) are final, so a job of several ranks can start summing
// them while the next stage runs (train/gradient_workers.h):
// - upper: the output layer, the sentence level and the word attention (and model.bag);
// - word_recurrence: the word GRU's recurrent weights (U, b_hh) and the embedding columns;
// - word_input_weights: the word GRU's input weights (W, b_ih), one large product.
enum class BackwardStage { upper, word_recurrence, word_input_weights };
inline constexpr BackwardStage kBackwardStages[] = {BackwardStage::upper, BackwardStage::word_recurrence,
                                                    BackwardStage::word_input_weights};
inline const char* to_string(BackwardStage stage) {
  switch (stage) {
    case BackwardStage::upper: return "upper layers";
    case BackwardStage::word_recurrence: return "word recurrence";
    case BackwardStage::word_input_weights: return "word input weights";
  }
  return "?";
}
// d_logits is read by the first stage only.
void han_backward_stage(const HanParams& p, HanCache& c, BackwardStage stage, const Matrix& d_logits, HanParams& g,
                        bool train_embeddings = true);
// The stage after which the gradient of the tensor named as in HanParams::fields is final.
BackwardStage backward_stage_of(const std::string& tensor);

}  // namespace han
