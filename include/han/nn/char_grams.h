#pragma once
// The linear member's character n-grams (model.linear_chars): of each word, padded as
// "<word>", every run of 2 to 5 characters (code points), hashed into kCharGramBuckets
// buckets. They let the member weigh words it never saw in training by their parts
// ("encrypt" from "encryption", "v1agra" near "viagra"), which is where a model of short
// texts loses most. A bucket held by at least kMinGramDocuments training documents is a
// feature; its column follows the words and word pairs (nn/linear_member.h).
// Stored with the model: the kept buckets, sorted, (1, G), and each vocabulary word's
// n-grams among them, (1, V) counts and a (1, T) list of indices into the buckets, so that a
// vocabulary word's n-grams are read, not hashed, and only unknown words (kept by
// Documents, text/unknown_words.h) are hashed when predicting. All held as floats, each
// value exact (below 2^24: a bucket, an index, a word's count); the offsets, which T may
// take past 2^24, are summed from the counts as integers.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "han/core/config_enums.h"
#include "han/core/tensor_view.h"
#include "han/core/types.h"
#include "han/text/documents.h"
#include "han/text/vocab.h"

namespace han {

constexpr int kCharGramMin = 2;
constexpr int kCharGramMax = 5;
constexpr std::uint32_t kCharGramBuckets = std::uint32_t{1} << 20;
constexpr int kMinGramDocuments = 2;
// At most this many are kept (those held by the most documents): about 1 MB of weights per
// output. Short texts hold far fewer; long ones hold more, mostly rare.
constexpr std::size_t kMaxCharGrams = std::size_t{1} << 18;

// The buckets of the n-grams of `word` (with repeats), appended to `out`.
void append_char_gram_buckets(std::string_view word, std::vector<std::uint32_t>& out);
// The n-gram text of `word` whose bucket is `bucket`, or "" when none is.
std::string char_gram_of(std::string_view word, std::uint32_t bucket);

// The member's n-gram tables (see the top of this file); empty when it has none.
struct CharGrams {
  Matrix buckets = Matrix(1, 0);      // (1, G), sorted
  Matrix word_counts = Matrix(1, 0);  // (1, V): how many of word_grams each word has; (1, 0) without n-grams
  Matrix word_grams = Matrix(1, 0);   // (1, T): indices into buckets, word by word
  // Where the n-grams of every kStride-th word start in word_grams (V / kStride + 1 values,
  // from the counts): a word's start adds the counts before it in its stride, so loading a
  // large vocabulary builds no table of one entry per word.
  static constexpr Index kStride = 16;
  std::vector<Index> stride_starts;
  // buckets, word_counts and word_grams left in a mapped model file (prediction; those
  // Matrix are then empty): each value is checked as it is read, so a one-line prediction
  // reads a few (the counts are read whole once, by index_char_grams).
  TensorView buckets_stored, word_counts_stored, word_grams_stored;
  std::string origin;  // the model file they are stored in, for messages

  Index count() const { return buckets_stored.empty() ? buckets.cols() : buckets_stored.cols(); }  // G
  Index total() const { return word_grams_stored.empty() ? word_grams.cols() : word_grams_stored.cols(); }  // T
  Index words() const { return word_counts_stored.empty() ? word_counts.cols() : word_counts_stored.cols(); }  // V
  Scalar bucket(Index k) const { return buckets_stored.empty() ? buckets(0, k) : *buckets_stored.values(k, 1); }
  // Word id's n-grams are gram_at(t) for t in [first, end) of grams_of(id).
  std::pair<Index, Index> grams_of(Index id) const;
  // Entry t of word_grams: an index into the buckets; han::Error when a stored one is not.
  Index gram_at(Index t) const;
  // The buckets as a Matrix (a copy when stored).
  Matrix bucket_matrix() const { return buckets_stored.empty() ? buckets : buckets_stored.copy(); }
};

// The n-grams of `train` (its words as `vocab` spells them, and its unknown words) held by
// at least kMinGramDocuments documents, at most `max_grams` of them (those held by the most
// documents), read as `text` says.
CharGrams count_char_grams(const Documents& train, const Vocab& vocab, std::size_t max_grams,
                           LinearText text = LinearText::whole);

// The tables for the sorted (1, G) `buckets` and the words of `vocab`.
CharGrams char_grams_of_words(const Vocab& vocab, Matrix buckets);

// The index of `bucket` among `count` sorted buckets (bucket(k) reads the k-th), or -1.
template <class Bucket>
Index find_sorted_bucket(Index count, const Bucket& bucket, std::uint32_t b) {
  const Scalar v = static_cast<Scalar>(b);
  Index lo = 0, hi = count;
  while (lo < hi) {
    const Index mid = lo + (hi - lo) / 2;
    if (bucket(mid) < v) lo = mid + 1;
    else hi = mid;
  }
  return lo < count && bucket(lo) == v ? lo : -1;
}

// Sets g.stride_starts from the counts when the tables fit together for a vocabulary of
// `vocab_size` words and returns ""; else returns what is wrong with them. The buckets and
// word_grams left in a model file are not read whole: their values are checked as they are
// used.
std::string index_char_grams(CharGrams& g, Index vocab_size);

}  // namespace han
