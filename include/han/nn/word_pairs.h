#pragma once
// The linear member's word pairs (bigrams): two words next to each other in a sentence,
// kept as features when at least kMinPairDocuments training documents hold them. A
// TF-IDF linear model over words and pairs is the strong classical baseline for text
// ("not good" is not "good"); the HAN reads order itself but learns little from rare
// phrases. The pairs are stored with the model as a (2, K) tensor of word ids, sorted,
// held as floats (exact below 2^24, far above any vocabulary): a pair's feature id is
// V + its column, after the V word ids. Lookup is a binary search, so loading needs no
// index and costs nothing beyond reading the tensor.
#include <cstddef>
#include <cstdint>
#include <string>

#include "han/core/config_enums.h"
#include "han/core/types.h"
#include "han/nn/member_words.h"
#include "han/text/documents.h"

namespace han {

constexpr int kMinPairDocuments = 2;
// The pairs kept are bounded so that the member's weights, outputs x (V + K) floats, stay
// under kMaxLinearWeights (256 MB) and K under kMaxWordPairs; past it the pairs held by
// the most documents are kept.
constexpr std::size_t kMaxWordPairs = std::size_t{1} << 22;
constexpr std::size_t kMaxLinearWeights = std::size_t{1} << 26;

// The pairs of `train` (read as `text` says) held by at least kMinPairDocuments documents,
// at most `max_pairs` of them, as a sorted (2, K) tensor.
Matrix count_word_pairs(const Documents& train, std::size_t max_pairs, LinearText text = LinearText::whole);

// The column of (first, second) among `count` sorted pairs, or -1; pair(k) gives pair k's
// two ids (a pointer to 2 values), so the pairs may lie in memory or in a model file.
template <class Pair>
Index find_sorted_pair(Index count, const Pair& pair, std::int32_t first, std::int32_t second) {
  const Scalar a = static_cast<Scalar>(first), b = static_cast<Scalar>(second);
  Index lo = 0, hi = count;  // the answer is in [lo, hi)
  while (lo < hi) {
    const Index mid = lo + (hi - lo) / 2;
    const Scalar* m = pair(mid);
    if (m[0] < a || (m[0] == a && m[1] < b)) lo = mid + 1;
    else hi = mid;
  }
  if (lo == count) return -1;
  const Scalar* m = pair(lo);
  return m[0] == a && m[1] == b ? lo : -1;
}

// The column of (first, second) in a sorted (2, K) pairs tensor, or -1.
Index find_word_pair(const Eigen::Ref<const Matrix>& pairs, std::int32_t first, std::int32_t second);

// Empty when `pairs` is a sorted (2, K) tensor of distinct pairs of ids below vocab_size;
// else what is wrong with it.
std::string word_pairs_problem(const Eigen::Ref<const Matrix>& pairs, Index vocab_size);

}  // namespace han
