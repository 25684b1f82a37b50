#include "han/nn/model.h"

#include <utility>

#include "han/core/error.h"

namespace han {

HanParams han_init(const ModelConfig& cfg, Index vocab_size, Index classes, Rng& rng) {
  HanParams p;
  p.embedding = embedding_init(vocab_size, cfg.embedding_dim, rng);
  p.word_gru = bigru_init(cfg.embedding_dim, cfg.word_hidden, rng);
  p.word_attention = attention_init(2 * cfg.word_hidden, cfg.attention_dim, rng);
  p.sentence_gru = bigru_init(2 * cfg.word_hidden, cfg.sentence_hidden, rng);
  p.sentence_attention = attention_init(2 * cfg.sentence_hidden, cfg.attention_dim, rng);
  p.output = linear_init(2 * cfg.sentence_hidden, classes, rng);
  p.bag = bag_init(cfg.bag == Bag::words ? vocab_size : 0, classes);
  return p;
}

HanParams han_shape(const ModelConfig& cfg, Index vocab_size, Index classes) {
  HanParams p;
  p.embedding = embedding_shape(vocab_size, cfg.embedding_dim);
  p.word_gru = bigru_shape(cfg.embedding_dim, cfg.word_hidden);
  p.word_attention = attention_shape(2 * cfg.word_hidden, cfg.attention_dim);
  p.sentence_gru = bigru_shape(2 * cfg.word_hidden, cfg.sentence_hidden);
  p.sentence_attention = attention_shape(2 * cfg.sentence_hidden, cfg.attention_dim);
  p.output = linear_shape(2 * cfg.sentence_hidden, classes);
  p.bag.W.resize(classes, cfg.bag == Bag::words ? vocab_size : 0);
  return p;
}

double han_parameter_count(const ModelConfig& cfg, Index vocab_size, Index classes) {
  const double E = cfg.embedding_dim, Hw = cfg.word_hidden, Hs = cfg.sentence_hidden, A = cfg.attention_dim;
  auto bigru = [](double in, double h) { return 2 * (3 * h * in + 3 * h * h + 6 * h); };
  auto attention = [&](double in) { return A * in + 2 * A; };
  const double bag = cfg.bag == Bag::words ? static_cast<double>(classes) * static_cast<double>(vocab_size) : 0;
  return E * static_cast<double>(vocab_size) + bigru(E, Hw) + attention(2 * Hw) + bigru(2 * Hw, Hs) +
         attention(2 * Hs) + static_cast<double>(classes) * (2 * Hs + 1) + bag;
}

namespace {

// The distinct ids of `ids`, in order of first appearance, and each id's place among them.
void distinct_ids(const std::vector<std::int32_t>& ids, Index vocab, std::vector<std::int32_t>& distinct,
                  std::vector<Index>& place) {
  thread_local std::vector<std::int32_t> slot;  // (vocab) an id's place, or -1; left all -1 between calls
  if (static_cast<Index>(slot.size()) < vocab) slot.assign(static_cast<std::size_t>(vocab), -1);
  distinct.clear();
  distinct.reserve(ids.size());  // no allocation (and so no throw) while slots are set
  place.resize(ids.size());
  for (std::size_t t = 0; t < ids.size(); ++t) {
    std::int32_t& s = slot[static_cast<std::size_t>(ids[t])];
    if (s < 0) {
      s = static_cast<std::int32_t>(distinct.size());
      distinct.push_back(ids[t]);
    }
    place[t] = s;
  }
  for (std::int32_t id : distinct) slot[static_cast<std::size_t>(id)] = -1;
}

}  // namespace

Matrix han_forward(const HanParams& p, const ModelConfig& cfg, const Batch& batch,
                   const DropoutPlan* dropout, HanCache& c, bool for_backward, const Matrix* word_inputs) {
  HAN_ASSERT(!(for_backward && word_inputs));
  HAN_ASSERT(!(dropout && word_inputs));
  const Index S = batch.max_sentences(), B = batch.size();
  // Word level: every real sentence of the batch is one sequence.
  const std::vector<Index> sentence_lengths = mask_lengths(batch.word_mask);  // (S*B)
  c.next_stage = 0;
  c.token_ids.clear();
  c.token_ids.reserve(batch.real_tokens);
  for (Index col = 0; col < S * B; ++col)
    for (Index w = 0; w < sentence_lengths[col]; ++w) c.token_ids.push_back(batch.ids(w, col));
  const std::vector<Index> doc_lengths = mask_lengths(batch.sentence_mask);  // (B)
  c.dropout = dropout && dropout->any()
                  ? draw_dropout(*dropout, {sentence_lengths, doc_lengths, S}, c.token_ids, cfg.embedding_dim,
                                 2 * cfg.word_hidden, 2 * cfg.sentence_hidden)
                  : DropoutMasks{};
  Matrix word_states;
  if (word_inputs) {
    word_states = bigru_forward_lookup(p.word_gru, *word_inputs, c.token_ids, sentence_lengths, c.word_gru);
  } else {
    // A word's input side is the same wherever it occurs: each distinct word of the shard is
    // embedded and projected once (and its gradients summed before the products), unless
    // embedding dropout gives every token a mask of its own.
    const bool per_token = c.dropout.embedding.size() != 0;
    if (per_token) {
      c.input_ids = c.token_ids;
      c.word_gru.input_of.clear();
    } else {
      distinct_ids(c.token_ids, p.embedding.words(), c.input_ids, c.word_gru.input_of);
    }
    embedding_forward(p.embedding, c.input_ids, c.x);
    if (per_token) c.x.array() *= c.dropout.embedding.array();
    word_states = bigru_forward(p.word_gru, c.x, sentence_lengths, c.word_gru, for_backward);
  }
  const Matrix sentence_vectors = attention_forward(p.word_attention, std::move(word_states), batch.word_mask,
                                                    cfg.mask, cfg.pooling, c.word_attention, for_backward);

  // Sentence level: the real sentences of each document, in order.
  c.padded_sentences = S * B;
  c.sentence_columns.clear();
  for (Index b = 0; b < B; ++b)
    for (Index s = 0; s < doc_lengths[b]; ++s) c.sentence_columns.push_back(s + S * b);
  c.sentence_inputs.resize(sentence_vectors.rows(), static_cast<Index>(c.sentence_columns.size()));
  for (std::size_t k = 0; k < c.sentence_columns.size(); ++k)
    c.sentence_inputs.col(static_cast<Index>(k)) = sentence_vectors.col(c.sentence_columns[k]);
  if (c.dropout.sentence.size() != 0) c.sentence_inputs.array() *= c.dropout.sentence.array();
  Matrix sentence_states =
      bigru_forward(p.sentence_gru, c.sentence_inputs, doc_lengths, c.sentence_gru, for_backward);
  Matrix docs = attention_forward(p.sentence_attention, std::move(sentence_states), batch.sentence_mask, cfg.mask,
                                  cfg.pooling, c.sentence_attention, for_backward);  // (2Hs, B)
  if (c.dropout.document.size() != 0) docs.array() *= c.dropout.document.array();
  Matrix logits = linear_forward(p.output, docs, c.output);
  if (cfg.bag == Bag::words) {
    // The bag reads the tokens the HAN reads (after the caps and word dropout).
    std::vector<Index> doc_tokens(B, 0);
    for (Index col = 0; col < S * B; ++col) doc_tokens[col / S] += sentence_lengths[col];
    c.bag = bag_features(c.token_ids, doc_tokens);
    bag_forward(p.bag.W, c.bag, logits);
  } else {
    c.bag = BagFeatures{};
  }
  return logits;
}

void han_backward_stage(const HanParams& p, HanCache& c, BackwardStage stage, const Matrix& d_logits, HanParams& g,
                        bool train_embeddings) {
  HAN_ASSERT(c.next_stage == static_cast<int>(stage));  // in order, once per forward: each stage frees what it read
  ++c.next_stage;
  switch (stage) {
    case BackwardStage::upper: {
      if (!c.bag.start.empty()) bag_backward(c.bag, d_logits, g.bag.W);
      Matrix d_docs = linear_backward(p.output, c.output, d_logits, g.output);
      if (c.dropout.document.size() != 0) d_docs.array() *= c.dropout.document.array();
      const Matrix d_sentence_states =
          attention_backward(p.sentence_attention, c.sentence_attention, d_docs, g.sentence_attention);
      Matrix d_sentence_inputs =
          bigru_backward(p.sentence_gru, c.sentence_gru, c.sentence_inputs, d_sentence_states, g.sentence_gru);
      if (c.dropout.sentence.size() != 0) d_sentence_inputs.array() *= c.dropout.sentence.array();
      Matrix d_sentence_vectors = Matrix::Zero(d_sentence_inputs.rows(), c.padded_sentences);
      for (std::size_t k = 0; k < c.sentence_columns.size(); ++k)
        d_sentence_vectors.col(c.sentence_columns[k]) = d_sentence_inputs.col(static_cast<Index>(k));
      c.d_word_states =
          attention_backward(p.word_attention, c.word_attention, d_sentence_vectors, g.word_attention);
      // Consumed: given back before the word recurrence's backward, a step's largest.
      c.word_attention.h = Matrix();
      c.word_attention.u = Matrix();
      return;
    }
    case BackwardStage::word_recurrence: {
      Matrix d_x = bigru_backward_inputs(p.word_gru, c.word_gru, c.d_word_states, g.word_gru);
      c.d_word_states = Matrix();
      if (c.dropout.embedding.size() != 0) d_x.array() *= c.dropout.embedding.array();
      if (train_embeddings) embedding_backward(c.input_ids, d_x, g.embedding);
      return;
    }
    case BackwardStage::word_input_weights:
      bigru_backward_weights(c.word_gru, c.x, g.word_gru);
      return;
  }
}

void han_backward(const HanParams& p, HanCache& c, const Matrix& d_logits, HanParams& g,
                  bool train_embeddings) {
  for (BackwardStage stage : kBackwardStages) han_backward_stage(p, c, stage, d_logits, g, train_embeddings);
}

BackwardStage backward_stage_of(const std::string& tensor) {
  if (tensor.rfind("word_gru.", 0) != 0) return tensor == kEmbeddingTable ? BackwardStage::word_recurrence
                                                                             : BackwardStage::upper;
  const std::string last = tensor.substr(tensor.rfind('.') + 1);
  return last == "W" || last == "b_ih" ? BackwardStage::word_input_weights : BackwardStage::word_recurrence;
}

}  // namespace han
