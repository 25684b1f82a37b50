#include "han/nn/word_pairs.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <utility>
#include <vector>

namespace han {
namespace {

std::uint64_t pair_key(std::int32_t first, std::int32_t second) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(first)) << 32) | static_cast<std::uint32_t>(second);
}

// The distinct pairs of one document, as keys.
void document_pairs(const SentenceList& sentences, std::vector<std::uint64_t>& keys) {
  keys.clear();
  for (const WordIds sentence : sentences)
    for (std::size_t w = 1; w < sentence.size(); ++w) keys.push_back(pair_key(sentence[w - 1], sentence[w]));
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
}

}  // namespace

Matrix count_word_pairs(const Documents& train, std::size_t max_pairs, LinearText text) {
  std::unordered_map<std::uint64_t, std::uint32_t> documents_holding;
  std::vector<std::uint64_t> keys;
  for (const DocumentView d : train) {
    document_pairs(member_sentences(d, text), keys);
    for (std::uint64_t k : keys) ++documents_holding[k];
  }
  std::vector<std::pair<std::uint32_t, std::uint64_t>> kept;  // (documents, key)
  for (const auto& [key, n] : documents_holding)
    if (n >= kMinPairDocuments) kept.emplace_back(n, key);
  documents_holding = {};
  if (kept.size() > max_pairs) {  // the most widely held first; equal ones by key
    std::nth_element(kept.begin(), kept.begin() + static_cast<std::ptrdiff_t>(max_pairs), kept.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); });
    kept.resize(max_pairs);
  }
  keys.clear();
  for (const auto& [n, key] : kept) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  Matrix pairs(2, static_cast<Index>(keys.size()));
  for (std::size_t k = 0; k < keys.size(); ++k) {
    pairs(0, static_cast<Index>(k)) = static_cast<Scalar>(keys[k] >> 32);
    pairs(1, static_cast<Index>(k)) = static_cast<Scalar>(keys[k] & 0xffffffffu);
  }
  return pairs;
}

Index find_word_pair(const Eigen::Ref<const Matrix>& pairs, std::int32_t first, std::int32_t second) {
  return find_sorted_pair(pairs.cols(), [&](Index k) { return pairs.col(k).data(); }, first, second);
}

std::string word_pairs_problem(const Eigen::Ref<const Matrix>& pairs, Index vocab_size) {
  if (pairs.rows() != 2) return "the word pairs tensor does not have 2 rows";
  for (Index k = 0; k < pairs.cols(); ++k)
    for (Index r = 0; r < 2; ++r) {
      const Scalar id = pairs(r, k);
      if (!(id >= 0 && id < static_cast<Scalar>(vocab_size)) || id != std::floor(id))
        return "word pair " + std::to_string(k) + " holds an id that is not a word of the vocabulary";
    }
  for (Index k = 1; k < pairs.cols(); ++k) {
    const bool ascending = pairs(0, k - 1) < pairs(0, k) || (pairs(0, k - 1) == pairs(0, k) && pairs(1, k - 1) < pairs(1, k));
    if (!ascending) return "the word pairs are not sorted";
  }
  return {};
}

}  // namespace han
