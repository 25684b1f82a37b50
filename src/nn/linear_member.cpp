#include "han/nn/linear_member.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "han/core/error.h"
#include "han/core/parallel.h"
#include "han/nn/word_pairs.h"

namespace han {

double equal_linear_weight(int han_members) {
  HAN_ASSERT(han_members >= 1);
  return 1.0 / (han_members + 1);
}

Matrix blend_answers(const Matrix& han_mean, const Matrix& linear, double weight) {
  const Scalar w = static_cast<Scalar>(weight);
  return (1 - w) * han_mean + w * linear;
}

bool fixed_linear_member_tensor(const std::string& name) {
  return name == "idf" || name == "pairs" || name == "grams" || name == "word_gram_counts" || name == "word_grams";
}

namespace {

// Parts for `threads` threads over n documents: one per thread, none under 256 documents.
int parts_for(std::size_t n, int threads) {
  return static_cast<int>(std::clamp<std::size_t>(n / 256, 1, static_cast<std::size_t>(std::max(threads, 1))));
}

// Part t of n items cut into `parts` consecutive parts as equal as can be.
std::pair<std::size_t, std::size_t> part_range(std::size_t n, int parts, int t) {
  const auto at = [&](int k) { return n * static_cast<std::size_t>(k) / static_cast<std::size_t>(parts); };
  return {at(t), at(t + 1)};
}

// Appends the feature ids of document d: its words, the pairs of p it holds (each pair at
// V + its column), then its words' character n-grams (at V + K + their index). Pairs in a
// model file are checked as the search reads them. `kept`: whether d's list keeps its
// unknown words; n-grams read them, so an <unk> of a list without them is a bug (its parts
// would be left out silently).
void append_features(const DocumentView& d, const LinearMemberParams& p, Index words, std::vector<std::int32_t>& out,
                     std::vector<std::uint32_t>& buckets, bool kept) {
  const Index count = p.pair_count();
  const auto pair = [&](Index k) { return p.pair(k); };
  for (const WordIds sentence : member_sentences(d, p.text)) {
    out.insert(out.end(), sentence.begin(), sentence.end());
    if (count == 0) continue;
    for (std::size_t w = 1; w < sentence.size(); ++w) {
      const Index k = find_sorted_pair(count, pair, sentence[w - 1], sentence[w]);
      if (k >= 0) out.push_back(static_cast<std::int32_t>(words + k));
    }
  }
  const CharGrams& g = p.grams;
  const Index grams = g.count();
  if (grams == 0) return;
  const auto first = static_cast<std::int32_t>(words + count);
  const auto bucket = [&](Index k) { return g.bucket(k); };
  for_each_member_word(d, p.text, [&](std::int32_t id, std::string_view unknown) {
    if (id != Vocab::kUnk) {
      HAN_ASSERT(id >= 0 && id < words);
      const auto [begin, end] = g.grams_of(id);
      for (Index t = begin; t < end; ++t) out.push_back(first + static_cast<std::int32_t>(g.gram_at(t)));
      return;
    }
    HAN_ASSERT(kept);
    if (unknown.empty()) return;
    buckets.clear();
    append_char_gram_buckets(unknown, buckets);
    for (std::uint32_t b : buckets)
      if (const Index k = find_sorted_bucket(grams, bucket, b); k >= 0) out.push_back(first + static_cast<std::int32_t>(k));
  });
}

// The feature ids of docs[at(n)] for n in [begin, end), appended document by document to
// tokens, and how many each document has to doc_tokens.
template <class At>
void append_documents(const LinearMemberParams& p, const Documents& docs, std::size_t begin, std::size_t end, At at,
                      std::vector<std::int32_t>& tokens, std::vector<Index>& doc_tokens) {
  std::vector<std::uint32_t> buckets;
  for (std::size_t n = begin; n < end; ++n) {
    const std::size_t i = at(n);
    HAN_ASSERT(i < docs.size());
    const std::size_t before = tokens.size();
    append_features(docs[i], p, p.words(), tokens, buckets, docs.unknown_words() != nullptr);
    doc_tokens.push_back(static_cast<Index>(tokens.size() - before));
  }
}

}  // namespace

Matrix linear_member_pairs(const Documents& train, Index outputs, int ngrams, LinearText text) {
  if (ngrams < 2) return Matrix(2, 0);
  return count_word_pairs(train, std::min(kMaxWordPairs, kMaxLinearWeights / static_cast<std::size_t>(std::max<Index>(outputs, 1))),
                          text);
}

CharGrams linear_member_grams(const Documents& train, const Vocab& vocab, Index outputs, Index pairs, bool chars,
                              LinearText text) {
  if (!chars) return {};
  const std::size_t budget = kMaxLinearWeights / static_cast<std::size_t>(std::max<Index>(outputs, 1));
  const std::size_t taken = vocab.size() + static_cast<std::size_t>(pairs);
  return count_char_grams(train, vocab, std::min(kMaxCharGrams, budget > taken ? budget - taken : 0), text);
}

namespace {

// `more`'s documents after x's.
void append_bag(BagFeatures& x, const BagFeatures& more) {
  const Index offset = x.start.back();
  for (std::size_t d = 1; d < more.start.size(); ++d) x.start.push_back(offset + more.start[d]);
  x.ids.insert(x.ids.end(), more.ids.begin(), more.ids.end());
  x.values.insert(x.values.end(), more.values.begin(), more.values.end());
}

// The parts one after another.
BagFeatures joined(std::vector<BagFeatures> parts) {
  BagFeatures x = std::move(parts.front());
  for (std::size_t k = 1; k < parts.size(); ++k) append_bag(x, parts[k]);
  return x;
}

// The feature counts of train[begin, end) (bag_counts), read in chunks; each feature's
// document frequency is added to df. With `keep`, the counts are returned, else dropped
// chunk by chunk (the memory of one chunk's).
BagFeatures counted_part(const Documents& train, const LinearMemberParams& p, std::size_t begin, std::size_t end,
                         bool keep, std::vector<std::uint32_t>& df) {
  constexpr std::size_t kChunk = 1024;
  BagFeatures kept;
  kept.start.push_back(0);
  std::vector<std::int32_t> tokens;
  std::vector<Index> doc_tokens;
  for (std::size_t first = begin; first < end; first += kChunk) {
    tokens.clear();
    doc_tokens.clear();
    append_documents(p, train, first, std::min(end, first + kChunk), [](std::size_t i) { return i; }, tokens, doc_tokens);
    const BagFeatures counts = bag_counts(tokens, doc_tokens);
    for (std::int32_t id : counts.ids) {
      HAN_ASSERT(id >= 0 && static_cast<std::size_t>(id) < df.size());
      ++df[static_cast<std::size_t>(id)];
    }
    if (keep) append_bag(kept, counts);
  }
  return kept;
}

// The idf of features with the document frequencies `part_df` summed over their parts, in
// `documents` documents (the counts are freed on return).
Matrix idf_of(std::vector<std::vector<std::uint32_t>> part_df, Index features, std::size_t documents) {
  std::vector<double> df(static_cast<std::size_t>(features), 0.0);
  for (const std::vector<std::uint32_t>& part : part_df)
    for (std::size_t id = 0; id < part.size(); ++id) df[id] += part[id];
  const double n = static_cast<double>(documents);
  Matrix idf(features, 1);
  for (Index id = 0; id < features; ++id)
    idf(id, 0) = static_cast<Scalar>(std::log((1.0 + n) / (1.0 + df[static_cast<std::size_t>(id)])) + 1.0);
  return idf;
}

// linear_member_init, and with `keep` the features of every training document.
LinearMemberInit member_init(const Documents& train, Index vocab_size, Index outputs, Matrix pairs, LinearText text,
                             CharGrams grams, int threads, bool keep) {
  LinearMemberInit r;
  LinearMemberParams& p = r.params;
  p.pairs = std::move(pairs);
  p.grams = std::move(grams);
  p.text = text;
  const Index features = vocab_size + p.pairs.cols() + p.grams.count();
  p.W = Matrix::Zero(outputs, features);
  p.b = Matrix::Zero(outputs, 1);
  // Document frequencies, counted on `threads` threads over parts of train, then summed.
  const int parts = parts_for(train.size(), threads);
  std::vector<std::vector<std::uint32_t>> part_df(static_cast<std::size_t>(parts));
  std::vector<BagFeatures> part_bags(static_cast<std::size_t>(parts));
  run_parallel(parts, [&](int t) {
    std::vector<std::uint32_t>& df = part_df[static_cast<std::size_t>(t)];
    df.assign(static_cast<std::size_t>(features), 0);
    const auto [begin, end] = part_range(train.size(), parts, t);
    part_bags[static_cast<std::size_t>(t)] = counted_part(train, p, begin, end, keep, df);
  });
  p.idf = idf_of(std::move(part_df), features, train.size());
  if (!keep) return r;
  const auto split = static_cast<std::int32_t>(features - p.grams.count());
  run_parallel(parts, [&](int t) { weigh_bag(part_bags[static_cast<std::size_t>(t)], p.idf.data(), split); });
  r.train_features = joined(std::move(part_bags));
  return r;
}

}  // namespace

LinearMemberParams linear_member_init(const Documents& train, Index vocab_size, Index outputs, Matrix pairs,
                                      LinearText text, CharGrams grams, int threads) {
  return member_init(train, vocab_size, outputs, std::move(pairs), text, std::move(grams), threads, false).params;
}

LinearMemberInit linear_member_init_with_features(const Documents& train, Index vocab_size, Index outputs,
                                                  Matrix pairs, LinearText text, CharGrams grams, int threads) {
  return member_init(train, vocab_size, outputs, std::move(pairs), text, std::move(grams), threads, true);
}

LinearFeatureNamer::LinearFeatureNamer(const LinearMemberParams& p, const Vocab& vocab) : p_(p), vocab_(vocab) {
  HAN_ASSERT(static_cast<Index>(vocab.size()) == p.words());
}

std::string LinearFeatureNamer::operator()(Index feature) const {
  const Index v = p_.words();
  HAN_ASSERT(feature >= 0 && feature < p_.features());
  if (feature < v) return std::string(vocab_.word(static_cast<std::int32_t>(feature)));
  if (feature >= v + p_.pair_count()) return gram_name(feature - v - p_.pair_count());
  const Scalar* pair = p_.pair(feature - v);
  std::string name;
  for (int r = 0; r < 2; ++r) {
    // Checked: pairs used in place are not checked whole when the model loads.
    if (!(pair[r] >= 0 && pair[r] < static_cast<Scalar>(v)))
      throw Error((vocab_.origin().empty() ? "" : vocab_.origin() + ": ") + "model file is corrupted (a word pair's id)");
    name += (r ? " " : "") + std::string(vocab_.word(static_cast<std::int32_t>(pair[r])));
  }
  return name;
}

std::string LinearFeatureNamer::gram_name(Index g) const {
  const CharGrams& grams = p_.grams;
  if (first_word_.empty()) {  // one pass over the words' n-grams, on the first name asked
    first_word_.assign(static_cast<std::size_t>(grams.count()), -1);
    for (Index id = 0; id < grams.words(); ++id)
      for (auto [t, end] = grams.grams_of(id); t < end; ++t) {
        Index& first = first_word_[static_cast<std::size_t>(grams.gram_at(t))];
        if (first < 0) first = id;
      }
  }
  const auto bucket = static_cast<std::uint32_t>(grams.bucket(g));
  if (const Index id = first_word_[static_cast<std::size_t>(g)]; id >= 0)
    if (const std::string text = char_gram_of(vocab_.word(static_cast<std::int32_t>(id)), bucket); !text.empty())
      return "chars:" + text;
  return "chars:#" + std::to_string(bucket);
}

namespace {

// The features of docs[indices[begin, end)].
BagFeatures features_of(const LinearMemberParams& p, const Documents& docs, const std::vector<Index>& indices,
                        std::size_t begin, std::size_t end) {
  std::vector<std::int32_t> tokens;
  std::vector<Index> doc_tokens;
  doc_tokens.reserve(end - begin);
  append_documents(p, docs, begin, end, [&](std::size_t n) {
    HAN_ASSERT(indices[n] >= 0);
    return static_cast<std::size_t>(indices[n]);
  }, tokens, doc_tokens);
  const auto grams = static_cast<std::int32_t>(p.features() - p.gram_count());
  if (p.idf_stored.empty()) return bag_features(tokens, doc_tokens, p.idf.data(), grams);
  for (std::int32_t f : tokens) p.idf_stored.values(f, 1);  // checks the entries bag_features reads
  return bag_features(tokens, doc_tokens, p.idf_stored.values(0, 0), grams);
}

}  // namespace

BagFeatures linear_member_features(const LinearMemberParams& p, const Documents& docs,
                                   const std::vector<Index>& indices, int threads) {
  const int parts = parts_for(indices.size(), threads);
  std::vector<BagFeatures> part(static_cast<std::size_t>(parts));
  run_parallel(parts, [&](int t) {
    const auto [begin, end] = part_range(indices.size(), parts, t);
    part[static_cast<std::size_t>(t)] = features_of(p, docs, indices, begin, end);
  });
  return joined(std::move(part));
}

Matrix linear_member_logits(const LinearMemberParams& p, const BagFeatures& x) {
  const Index B = static_cast<Index>(x.start.size()) - 1;
  Matrix logits = p.b.replicate(1, B);
  if (p.W_stored.empty()) {
    bag_forward(p.W, x, logits);
    return logits;
  }
  for (Index b = 0; b < B; ++b)
    for (Index k = x.start[b]; k < x.start[b + 1]; ++k) logits.col(b) += x.values[k] * p.weights(x.ids[k]);
  return logits;
}

void linear_member_backward(const BagFeatures& x, const Matrix& d_logits, LinearMemberParams& g) {
  bag_backward(x, d_logits, g.W);
  g.b += d_logits.rowwise().sum();
}

}  // namespace han
