#pragma once
// Batched, threaded inference: the head's answers (probabilities, or numbers for
// regression), optional attention explanations and the attention mass that padded
// positions receive. Over an ensemble, every member reads the same batches: the answers
// are the members' mean (tempered as a whole by the head's temperature), and so are the attention weights (explanations and padding mass
// come from the averaged weights). A linear member (nn/linear_member.h) is averaged in with
// its weight (the HAN members' mean counts the rest); it has no attention, so the weights
// are the HAN members' alone.
#include <functional>
#include <vector>

#include "han/infer/member_explanation.h"
#include "han/text/batch.h"
#include "han/nn/head.h"
#include "han/nn/linear_member.h"
#include "han/nn/model.h"
#include "han/nn/word_input_table.h"

namespace han {

// One answer explained: the HAN's attention (over an ensemble, its members' mean) and,
// when the model has a linear member, the member's side (infer/member_explanation.h).
struct Explanation {
  std::vector<float> sentence_weights;           // (sentences)
  std::vector<std::vector<float>> word_weights;  // (sentences)(words)
  MemberExplanation member;
};

// Mean total attention weight on padded positions, over real sentences (word level)
// and non-empty documents (sentence level).
struct PaddingAttention {
  double word_sum = 0, sentence_sum = 0;
  Index word_rows = 0, sentence_rows = 0;
  double word() const { return word_rows ? word_sum / static_cast<double>(word_rows) : 0.0; }
  double sentence() const { return sentence_rows ? sentence_sum / static_cast<double>(sentence_rows) : 0.0; }
  void add(const PaddingAttention& o);
};

class Predictor {
 public:
  // Keeps a reference to params, which must outlive it and not change. Not thread-safe:
  // one call at a time (each call fills its documents' words into the word input table).
  Predictor(const HanParams& params, const ModelConfig& cfg, int threads, OutputHead head = {});
  // An ensemble: members share cfg and the head (and a vocabulary and labels); the same terms.
  // `linear`, when it has params, is averaged in with its weight.
  Predictor(std::vector<const HanParams*> members, const ModelConfig& cfg, int threads, OutputHead head = {},
            WeightedLinearMember linear = {});
  // Probabilities (C, n), column i for docs[i]. Documents are batched by length.
  Matrix predict(const Documents& docs, Index batch_size,
                 std::vector<Explanation>* explanations = nullptr,
                 PaddingAttention* padding = nullptr) const;
  // The same over given batches (every document in exactly one of them).
  Matrix predict(const Documents& docs, const std::vector<std::vector<Index>>& batches,
                 std::vector<Explanation>* explanations = nullptr,
                 PaddingAttention* padding = nullptr) const;
  // Probabilities (C, B) for docs[indices] padded together as one batch, in that order.
  Matrix predict_batch(const Documents& docs, const std::vector<Index>& indices,
                       std::vector<Explanation>* explanations = nullptr,
                       PaddingAttention* padding = nullptr) const;
  // Number of classes: the rows of every probability matrix (1 for regression).
  Index classes() const { return members_.front()->output.W.rows(); }
  const OutputHead& head() const { return head_; }
  // Called on the calling thread as predict() works through its batches, with the number
  // of documents answered so far (to draw progress). When it returns false, the batches
  // not yet started are skipped and their columns left unset: the caller that stopped
  // the prediction must discard it.
  void on_progress(std::function<bool(Index done)> f) { progress_ = std::move(f); }
  // Batches of at least kFastGemmTokens real tokens run their products on libxsmm
  // (nn/kernels.h) unless this is turned off: then every product runs on Eigen, so a
  // document's answer differs between batches only by the order of the sums (han ablate's
  // invariance measure).
  void allow_fast_gemm(bool allowed) { fast_gemm_allowed_ = allowed; }

 private:
  Matrix predict_batch(const Documents& docs, const std::vector<Index>& indices, int threads,
                       std::vector<Explanation>* explanations, PaddingAttention* padding) const;
  Matrix forward_members(const Documents& docs, const Batch& shard, HanCache& cache,
                         std::vector<MemberExplanation>* member_side) const;
  // The member's side of each of the shard's answers (`answers`: the blend's).
  std::vector<MemberExplanation> explain_members(const BagFeatures& x, const Matrix& han, const Matrix& member,
                                                 const Matrix& answers) const;
  void fill_word_inputs(const Documents& docs, const std::vector<Index>& indices, int threads = 1) const;

  std::vector<const HanParams*> members_;
  WeightedLinearMember linear_;
  ModelConfig cfg_;
  OutputHead head_;
  OutputHead member_head_;  // an ensemble member's: probabilities without a temperature
  int threads_;
  mutable std::vector<WordInputTable> word_inputs_;  // one per member; grow with the words seen
  std::function<bool(Index)> progress_;
  bool fast_gemm_allowed_ = true;
};

// Index of the largest probability in each column.
std::vector<std::int32_t> argmax_columns(const Matrix& probabilities);

}  // namespace han
