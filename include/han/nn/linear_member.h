#pragma once
// The linear member (model.linear_member): a TF-IDF linear model over each document's bag
// of words, trained on its own after the HAN (train/linear_member_training.h) and averaged
// in with the HAN's answers as one more ensemble member. Its errors differ from the HAN's:
// it weighs every word it has seen, in or out of context, where the HAN reads words in
// order and learns little from rare ones. Its features are the vocabulary's words and,
// with model.linear_ngrams = 2, the word pairs of nn/word_pairs.h, and with
// model.linear_chars, the words' character n-grams of nn/char_grams.h: sublinear tf times idf,
// 1 + ln(count) times ln((1 + N) / (1 + df)) + 1 over the N training documents, scaled to
// unit L2 norm per document, the n-grams apart from the words and pairs (so that a word's
// dozen n-grams do not drown its word; PAD never occurs; <unk> counts as a word).
#include <string>
#include <vector>

#include "han/core/tensor_view.h"
#include "han/core/types.h"
#include "han/nn/char_grams.h"
#include "han/nn/layers/bag.h"
#include "han/text/documents.h"
#include "han/text/vocab.h"

namespace han {

struct LinearMemberParams {
  Matrix W;      // (C, F): logit weights per feature, the V words, the K word pairs, the G n-grams
  Matrix b;      // (C, 1)
  Matrix idf;    // (F, 1): fixed once computed from the training documents, not trained
  Matrix pairs;  // (2, K): the word pairs (nn/word_pairs.h); K = 0 for words alone
  CharGrams grams;  // the character n-grams (nn/char_grams.h); G = 0 without them
  LinearText text = LinearText::whole;  // what it reads (model.linear_text); not a tensor
  // W, idf and pairs left in a mapped model file (prediction; those Matrix are then empty).
  TensorView W_stored, idf_stored, pairs_stored;
  bool empty() const { return W.size() == 0 && W_stored.empty(); }
  Index features() const { return W_stored.empty() ? W.cols() : W_stored.cols(); }  // F
  Index pair_count() const { return pairs_stored.empty() ? pairs.cols() : pairs_stored.cols(); }  // K
  Index gram_count() const { return grams.count(); }  // G
  Index words() const { return features() - pair_count() - gram_count(); }  // V
  // Feature f's weights, one per output (C); checked when stored.
  Eigen::Map<const Vector> weights(Index f) const {
    return {W_stored.empty() ? W.col(f).data() : W_stored.column(f), W_stored.empty() ? W.rows() : W_stored.rows()};
  }
  ConstMap idf_values() const { return read_view(idf, idf_stored); }  // (F, 1)
  ConstMap pair_ids() const { return read_view(pairs, pairs_stored); }  // (2, K)
  // Pair k's two word ids; checked when stored (only the chunk read).
  const Scalar* pair(Index k) const { return pairs_stored.empty() ? pairs.col(k).data() : pairs_stored.column(k); }
  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f("W", s.W);
    f("b", s.b);
    f("idf", s.idf);
    f("pairs", s.pairs);
    f("grams", s.grams.buckets);
    f("word_gram_counts", s.grams.word_counts);
    f("word_grams", s.grams.word_grams);
  }
};
// The tensors training leaves as they are (idf, pairs, the n-gram tables).
bool fixed_linear_member_tensor(const std::string& name);

// A linear member as an ensemble averages it in: its answers count `weight`, the HAN
// members' mean 1 - weight (model.linear_weight). No params: no linear member.
struct WeightedLinearMember {
  const LinearMemberParams* params = nullptr;
  double weight = 0;
};

// The equal share of a linear member beside `han_members` HAN members: 1 / (N + 1), as one
// more member (model.linear_weight without a dev set to choose on, and model files from
// before the setting).
double equal_linear_weight(int han_members);
// The answers (1 - weight) han_mean + weight linear.
Matrix blend_answers(const Matrix& han_mean, const Matrix& linear, double weight);

// The word pairs a member of `outputs` rows over `train` keeps with model.linear_ngrams =
// ngrams: none for 1, count_word_pairs' for 2 (within the bounds of nn/word_pairs.h).
Matrix linear_member_pairs(const Documents& train, Index outputs, int ngrams, LinearText text = LinearText::whole);
// The character n-grams a member of `outputs` rows over `train` keeps, within the bound on
// its weights that the words and `pairs` leave (none when `chars` is false).
CharGrams linear_member_grams(const Documents& train, const Vocab& vocab, Index outputs, Index pairs, bool chars,
                              LinearText text = LinearText::whole);
// Zero weights, and the idf of `train` (read as `text` says) over the features: a
// vocabulary of `vocab_size` ids, then `pairs`, then `grams`.
// The documents are read on `threads` threads (the same idf for any count).
LinearMemberParams linear_member_init(const Documents& train, Index vocab_size, Index outputs, Matrix pairs = Matrix(2, 0),
                                      LinearText text = LinearText::whole, CharGrams grams = {}, int threads = 1);
// linear_member_init's member, and the features of every training document under its idf
// (linear_member_features of them all): one read of the documents serves both, as the idf
// is counted from the documents' feature counts before they are weighed.
struct LinearMemberInit {
  LinearMemberParams params;
  BagFeatures train_features;
};
LinearMemberInit linear_member_init_with_features(const Documents& train, Index vocab_size, Index outputs,
                                                  Matrix pairs, LinearText text, CharGrams grams, int threads);
// A feature's text: its word, its two words joined by a space, or a character n-gram as
// 'chars:' and its text (that of the first vocabulary word that has it; its bucket
// number when none does). The first n-gram named indexes them all (one pass over the
// words' n-grams), so keep one namer for many names. Holds references to `p` and `vocab`.
class LinearFeatureNamer {
 public:
  LinearFeatureNamer(const LinearMemberParams& p, const Vocab& vocab);
  std::string operator()(Index feature) const;

 private:
  std::string gram_name(Index g) const;
  const LinearMemberParams& p_;
  const Vocab& vocab_;
  mutable std::vector<Index> first_word_;  // per n-gram, the first word holding it (-1: none)
};
// The features of docs[indices], in that order, read on `threads` threads.
BagFeatures linear_member_features(const LinearMemberParams& p, const Documents& docs,
                                   const std::vector<Index>& indices, int threads = 1);
// logits (C, B) = W x_b + b.
Matrix linear_member_logits(const LinearMemberParams& p, const BagFeatures& x);
// g.W += d_logits x^T and g.b += the row sums of d_logits (g.idf untouched).
void linear_member_backward(const BagFeatures& x, const Matrix& d_logits, LinearMemberParams& g);

}  // namespace han
