#include "han/nn/char_grams.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "han/core/error.h"
#include "han/core/hash.h"
#include "han/nn/member_words.h"

namespace han {
namespace {

// The byte offsets where the characters of "<word>" start, and its end.
std::vector<std::size_t> char_starts(const std::string& padded) {
  std::vector<std::size_t> starts;
  for (std::size_t i = 0; i < padded.size(); ++i)
    if ((static_cast<unsigned char>(padded[i]) & 0xC0) != 0x80) starts.push_back(i);
  starts.push_back(padded.size());
  return starts;
}

std::uint32_t bucket_of(std::string_view gram) {
  const std::uint64_t h = fnv1a(gram.data(), gram.size());
  return static_cast<std::uint32_t>((h ^ (h >> 32)) & (kCharGramBuckets - 1));
}

// Calls f(gram) for each n-gram of `word`.
template <class F>
void for_each_gram(std::string_view word, F&& f) {
  std::string padded;
  padded.reserve(word.size() + 2);
  padded.push_back('<');
  padded.append(word);
  padded.push_back('>');
  const std::vector<std::size_t> at = char_starts(padded);
  const std::size_t chars = at.size() - 1;
  for (std::size_t i = 0; i < chars; ++i)
    for (std::size_t n = kCharGramMin; n <= kCharGramMax && i + n <= chars; ++n)
      f(std::string_view(padded).substr(at[i], at[i + n] - at[i]));
}

using WordBuckets = std::vector<std::vector<std::uint32_t>>;

// Each vocabulary word's buckets, with repeats (none for <pad> and <unk>).
WordBuckets buckets_of_words(const Vocab& vocab) {
  WordBuckets of_word(vocab.size());
  for (std::size_t id = 0; id < of_word.size(); ++id)
    if (static_cast<std::int32_t>(id) != Vocab::kPad && static_cast<std::int32_t>(id) != Vocab::kUnk)
      append_char_gram_buckets(vocab.word(static_cast<std::int32_t>(id)), of_word[id]);
  return of_word;
}

// The tables for the sorted (1, G) `buckets` and words whose buckets are `of_word`.
CharGrams tables_of(const WordBuckets& of_word, Matrix buckets) {
  CharGrams g;
  g.buckets = std::move(buckets);
  const Index G = g.count();
  if (G == 0) return g;
  const auto bucket = [&](Index k) { return g.buckets(0, k); };
  std::vector<Scalar> grams;
  g.word_counts.resize(1, static_cast<Index>(of_word.size()));
  for (std::size_t id = 0; id < of_word.size(); ++id) {
    const std::size_t before = grams.size();
    for (std::uint32_t b : of_word[id])
      if (const Index k = find_sorted_bucket(G, bucket, b); k >= 0) grams.push_back(static_cast<Scalar>(k));
    g.word_counts(0, static_cast<Index>(id)) = static_cast<Scalar>(grams.size() - before);
  }
  g.word_grams = Eigen::Map<const Matrix>(grams.data(), 1, static_cast<Index>(grams.size()));
  const std::string problem = index_char_grams(g, static_cast<Index>(of_word.size()));  // the stride starts
  HAN_ASSERT(problem.empty());
  return g;
}

}  // namespace

void append_char_gram_buckets(std::string_view word, std::vector<std::uint32_t>& out) {
  for_each_gram(word, [&](std::string_view gram) { out.push_back(bucket_of(gram)); });
}

std::string char_gram_of(std::string_view word, std::uint32_t bucket) {
  std::string found;
  for_each_gram(word, [&](std::string_view gram) {
    if (found.empty() && bucket_of(gram) == bucket) found = std::string(gram);
  });
  return found;
}

CharGrams count_char_grams(const Documents& train, const Vocab& vocab, std::size_t max_grams, LinearText text) {
  const WordBuckets of_word = buckets_of_words(vocab);  // hashed once, for the counts and the tables
  std::vector<std::uint32_t> df(kCharGramBuckets, 0), seen;
  for (const DocumentView d : train) {
    seen.clear();
    for_each_member_word(d, text, [&](std::int32_t id, std::string_view unknown) {
      if (id != Vocab::kUnk) {
        const auto& b = of_word[static_cast<std::size_t>(id)];
        seen.insert(seen.end(), b.begin(), b.end());
      } else if (!unknown.empty()) {
        append_char_gram_buckets(unknown, seen);
      }
    });
    std::sort(seen.begin(), seen.end());
    seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
    for (std::uint32_t b : seen) ++df[b];
  }
  std::vector<std::uint32_t> kept;
  for (std::uint32_t b = 0; b < kCharGramBuckets; ++b)
    if (df[b] >= static_cast<std::uint32_t>(kMinGramDocuments)) kept.push_back(b);
  if (kept.size() > max_grams) {  // those held by the most documents
    std::stable_sort(kept.begin(), kept.end(), [&](std::uint32_t a, std::uint32_t b) { return df[a] > df[b]; });
    kept.resize(max_grams);
    std::sort(kept.begin(), kept.end());
  }
  Matrix buckets(1, static_cast<Index>(kept.size()));
  for (std::size_t k = 0; k < kept.size(); ++k) buckets(0, static_cast<Index>(k)) = static_cast<Scalar>(kept[k]);
  return tables_of(of_word, std::move(buckets));
}

CharGrams char_grams_of_words(const Vocab& vocab, Matrix buckets) {
  return tables_of(buckets_of_words(vocab), std::move(buckets));
}

std::pair<Index, Index> CharGrams::grams_of(Index id) const {
  HAN_ASSERT(id >= 0 && id < words());
  const Index stride = id / kStride, from = stride * kStride;
  // Counts [from, id] (checked whole by index_char_grams when stored).
  const Scalar* counts = word_counts_stored.empty() ? word_counts.data() + from : word_counts_stored.values(from, id - from + 1);
  Index first = stride_starts[static_cast<std::size_t>(stride)];
  for (Index w = 0; w < id - from; ++w) first += static_cast<Index>(counts[w]);
  return {first, first + static_cast<Index>(counts[id - from])};
}

Index CharGrams::gram_at(Index t) const {
  if (word_grams_stored.empty()) return static_cast<Index>(word_grams(0, t));
  const Scalar k = *word_grams_stored.values(t, 1);
  if (!(k >= 0 && k < static_cast<Scalar>(count())) || k != std::floor(k))
    throw Error(origin + ": model file is corrupted (a word's character n-gram is out of range)");
  return static_cast<Index>(k);
}

std::string index_char_grams(CharGrams& g, Index vocab_size) {
  const Index G = g.count();
  g.stride_starts.clear();
  if (G == 0) return g.words() == 0 && g.total() == 0 ? "" : "n-gram tables without n-grams";
  const bool stored = !g.buckets_stored.empty() || !g.word_grams_stored.empty();
  for (Index k = 0; k < (stored ? 0 : G); ++k) {
    const Scalar b = g.buckets(0, k);
    if (!(b >= 0 && b < static_cast<Scalar>(kCharGramBuckets)) || b != std::floor(b) ||
        (k > 0 && !(g.buckets(0, k - 1) < b)))
      return "the character n-grams are not sorted buckets";
  }
  if (g.words() != vocab_size) return "the words' character n-grams do not match the vocabulary";
  const ConstMap counts = read_view(g.word_counts, g.word_counts_stored);
  std::vector<Index> starts;
  starts.reserve(static_cast<std::size_t>(vocab_size / CharGrams::kStride) + 1);
  Index total = 0;
  for (Index i = 0; i <= vocab_size; ++i) {
    if (i % CharGrams::kStride == 0) starts.push_back(total);
    if (i == vocab_size) break;
    const Scalar n = counts(0, i);
    if (!(n >= 0 && n < static_cast<Scalar>(1 << 24)) || n != std::floor(n)) return "a word's count of character n-grams is not a count";
    total += static_cast<Index>(n);
  }
  if (total != g.total()) return "the words' character n-grams do not add up";
  for (Index t = 0; t < (stored ? 0 : g.total()); ++t) {
    const Scalar k = g.word_grams(0, t);
    if (!(k >= 0 && k < static_cast<Scalar>(G)) || k != std::floor(k)) return "a word's character n-gram is out of range";
  }
  g.stride_starts = std::move(starts);
  return "";
}

}  // namespace han
