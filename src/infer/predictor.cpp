#include "han/infer/predictor.h"

#include <atomic>
#include <optional>

#include "han/nn/kernels.h"
#include "han/text/batcher.h"
#include "han/core/error.h"
#include "han/core/parallel.h"

namespace han {
namespace {

PaddingAttention padding_attention(const HanCache& c) {
  PaddingAttention pa;
  const Matrix& wa = c.word_attention.alpha;      // (W, S*B)
  const Matrix& sa = c.sentence_attention.alpha;  // (S, B)
  for (Index col = 0; col < wa.cols(); ++col) {
    const Index len = c.word_attention.lengths[col];
    if (len == 0) continue;
    pa.word_sum += wa.col(col).tail(wa.rows() - len).sum();
    ++pa.word_rows;
  }
  for (Index b = 0; b < sa.cols(); ++b) {
    const Index len = c.sentence_attention.lengths[b];
    if (len == 0) continue;
    pa.sentence_sum += sa.col(b).tail(sa.rows() - len).sum();
    ++pa.sentence_rows;
  }
  return pa;
}

Explanation explain(const Batch& batch, const HanCache& c, Index b) {
  Explanation e;
  const Index S = batch.max_sentences();
  const Index sentences = c.sentence_attention.lengths[b];
  for (Index s = 0; s < sentences; ++s) {
    e.sentence_weights.push_back(c.sentence_attention.alpha(s, b));
    const Index col = s + S * b;
    const Index words = c.word_attention.lengths[col];
    std::vector<float> w(words);
    for (Index k = 0; k < words; ++k) w[k] = c.word_attention.alpha(k, col);
    e.word_weights.push_back(std::move(w));
  }
  return e;
}

}  // namespace

void PaddingAttention::add(const PaddingAttention& o) {
  word_sum += o.word_sum;
  sentence_sum += o.sentence_sum;
  word_rows += o.word_rows;
  sentence_rows += o.sentence_rows;
}

Predictor::Predictor(const HanParams& params, const ModelConfig& cfg, int threads, OutputHead head)
    : Predictor(std::vector<const HanParams*>{&params}, cfg, threads, std::move(head)) {}

Predictor::Predictor(std::vector<const HanParams*> members, const ModelConfig& cfg, int threads, OutputHead head,
                     WeightedLinearMember linear)
    : members_(std::move(members)),
      linear_(linear),
      cfg_(cfg),
      head_(std::move(head)),
      member_head_(initial_head(head_.task, 0, head_.scale)),
      threads_(resolve_threads(threads)) {
  HAN_ASSERT(!members_.empty());
  HAN_ASSERT(!linear_.params || (linear_.weight >= 0 && linear_.weight <= 1));
  word_inputs_.reserve(members_.size());
  for (const HanParams* m : members_) word_inputs_.emplace_back(*m);
}

namespace {

// Whether a batch's products run on libxsmm (nn/kernels.h: large enough to be worth its set-up).
bool fast_gemm_for(const Documents& docs, const std::vector<Index>& indices) {
  return batch_counts(docs, indices).real_tokens >= kFastGemmTokens;
}

}  // namespace

// Always on Eigen: a word's column is computed once and kept, so its value must not depend
// on the batch that first held the word (a lone request to han serve answers what han
// predict answers for the text alone).
void Predictor::fill_word_inputs(const Documents& docs, const std::vector<Index>& indices, int threads) const {
  for (WordInputTable& t : word_inputs_) t.fill(docs, indices, threads);
}

// The members' mean answers (C, B) for one shard. `cache` holds the first member's
// forward state with the attention weights replaced by the HAN members' mean;
// `member_side`, when given and the model has a linear member, its side of each answer.
Matrix Predictor::forward_members(const Documents& docs, const Batch& shard, HanCache& cache,
                                  std::vector<MemberExplanation>* member_side) const {
  // An ensemble's temperature applies to its members' mean (nn/head.h: ensemble_answers).
  const bool single = members_.size() == 1 && !linear_.params;
  const OutputHead& each = single ? head_ : member_head_;
  Matrix probs = head_answers(
      each, han_forward(*members_[0], cfg_, shard, nullptr, cache, /*for_backward=*/false, word_inputs_[0].table()));
  if (single) return probs;
  for (std::size_t m = 1; m < members_.size(); ++m) {
    HanCache other;
    probs += head_answers(
        each, han_forward(*members_[m], cfg_, shard, nullptr, other, /*for_backward=*/false, word_inputs_[m].table()));
    cache.word_attention.alpha += other.word_attention.alpha;
    cache.sentence_attention.alpha += other.sentence_attention.alpha;
  }
  const Scalar han_members = static_cast<Scalar>(members_.size());
  cache.word_attention.alpha /= han_members;
  cache.sentence_attention.alpha /= han_members;
  probs /= han_members;
  if (!linear_.params) return ensemble_answers(head_, probs);
  const LinearMemberParams& p = *linear_.params;
  const BagFeatures x = linear_member_features(p, docs, shard.documents);
  const Matrix member = head_answers(each, linear_member_logits(p, x));
  const Matrix answers = ensemble_answers(head_, blend_answers(probs, member, linear_.weight));
  if (member_side) *member_side = explain_members(x, probs, member, answers);
  return answers;
}

std::vector<MemberExplanation> Predictor::explain_members(const BagFeatures& x, const Matrix& han,
                                                          const Matrix& member, const Matrix& answers) const {
  const bool regression = head_.task == Task::regression;
  std::vector<MemberExplanation> out;
  for (Index b = 0; b < answers.cols(); ++b) {
    Index label = 0;  // the most probable; han predict re-explains a multi-label row's first answered label
    if (!regression) answers.col(b).maxCoeff(&label);
    out.push_back(explain_member(*linear_.params, x, b, linear_.weight, han, member, label,
                                 regression ? head_.scale.sd : 1.0));
  }
  return out;
}

Matrix Predictor::predict_batch(const Documents& docs, const std::vector<Index>& indices,
                                std::vector<Explanation>* explanations,
                                PaddingAttention* padding) const {
  fill_word_inputs(docs, indices);
  return predict_batch(docs, indices, threads_, explanations, padding);
}

Matrix Predictor::predict_batch(const Documents& docs, const std::vector<Index>& indices, int threads,
                                std::vector<Explanation>* explanations, PaddingAttention* padding) const {
  const std::vector<Batch> shards = make_shards(docs, indices, threads);
  const bool fast = fast_gemm_allowed_ && fast_gemm_for(docs, indices);
  std::vector<Matrix> probs(shards.size());
  std::vector<std::vector<Explanation>> shard_explanations(shards.size());
  std::vector<PaddingAttention> shard_padding(shards.size());
  run_parallel(static_cast<int>(shards.size()), [&](int k) {
    std::optional<FastGemm> fast_gemm;
    if (fast) fast_gemm.emplace();
    HanCache cache;
    std::vector<MemberExplanation> member_side;
    probs[k] = forward_members(docs, shards[k], cache, explanations ? &member_side : nullptr);
    if (padding) shard_padding[k] = padding_attention(cache);
    if (explanations)
      for (Index b = 0; b < shards[k].size(); ++b) {
        shard_explanations[k].push_back(explain(shards[k], cache, b));
        if (!member_side.empty()) shard_explanations[k].back().member = std::move(member_side[static_cast<std::size_t>(b)]);
      }
  });
  Matrix out(classes(), static_cast<Index>(indices.size()));
  Index col = 0;
  for (std::size_t k = 0; k < shards.size(); ++k) {
    out.middleCols(col, probs[k].cols()) = probs[k];
    col += probs[k].cols();
    if (padding) padding->add(shard_padding[k]);
    if (explanations)
      for (Explanation& e : shard_explanations[k]) explanations->push_back(std::move(e));
  }
  return out;
}

Matrix Predictor::predict(const Documents& docs, Index batch_size,
                          std::vector<Explanation>* explanations, PaddingAttention* padding) const {
  return predict(docs, inference_batches(docs, batch_size), explanations, padding);
}

Matrix Predictor::predict(const Documents& docs, const std::vector<BatchIndices>& batches,
                          std::vector<Explanation>* explanations, PaddingAttention* padding) const {
  // Documents in none of the batches stay zero (a rank scores its share of dev; the ranks' sum is the whole).
  Matrix out = Matrix::Zero(classes(), static_cast<Index>(docs.size()));
  if (explanations) explanations->assign(docs.size(), Explanation());
  // On every thread when they will take whole batches (below) and would wait meanwhile; a
  // lone batch (han predict's stream, whose reading thread is busy too) on one.
  const bool many = threads_ > 1 && batches.size() >= static_cast<std::size_t>(threads_);
  for (const BatchIndices& indices : batches) fill_word_inputs(docs, indices, many ? threads_ : 1);
  // Writes one batch's answers to its documents' columns (disjoint across batches).
  auto predict_into = [&](int threads, const BatchIndices& indices, PaddingAttention* pad) {
    std::vector<Explanation> batch_explanations;
    const Matrix p = predict_batch(docs, indices, threads, explanations ? &batch_explanations : nullptr, pad);
    for (std::size_t i = 0; i < indices.size(); ++i) {
      out.col(indices[i]) = p.col(static_cast<Index>(i));
      if (explanations) (*explanations)[indices[i]] = std::move(batch_explanations[i]);
    }
  };
  // Progress counts answered documents across threads; only the calling thread (k = 0)
  // reports, and a false answer stops every thread before its next batch.
  std::atomic<Index> done{0};
  std::atomic<bool> stopped{false};
  auto report = [&](const BatchIndices& indices, bool caller) {
    const Index total = done += static_cast<Index>(indices.size());
    if (progress_ && caller && !progress_(total)) stopped = true;
  };
  if (many) {
    // Many batches: each thread takes whole batches (larger products, no thread start per
    // batch). A lone batch is split into shards by predict_batch instead.
    std::vector<PaddingAttention> per_thread(threads_);
    run_parallel(threads_, [&](int k) {
      for (std::size_t b = static_cast<std::size_t>(k); b < batches.size() && !stopped;
           b += static_cast<std::size_t>(threads_)) {
        try {
          predict_into(1, batches[b], padding ? &per_thread[k] : nullptr);
        } catch (...) {
          stopped = true;  // (a damaged model chunk, say): the other threads stop too
          throw;
        }
        report(batches[b], k == 0);
      }
    });
    if (padding)
      for (const PaddingAttention& pa : per_thread) padding->add(pa);
    return out;
  }
  for (std::size_t b = 0; b < batches.size() && !stopped; ++b) {
    predict_into(threads_, batches[b], padding);
    report(batches[b], true);
  }
  return out;
}

std::vector<std::int32_t> argmax_columns(const Matrix& probabilities) {
  std::vector<std::int32_t> out(probabilities.cols());
  for (Index b = 0; b < probabilities.cols(); ++b) {
    Index best;
    probabilities.col(b).maxCoeff(&best);
    out[b] = static_cast<std::int32_t>(best);
  }
  return out;
}

}  // namespace han
