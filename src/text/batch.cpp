#include "han/text/batch.h"

#include <algorithm>

namespace han {
namespace {

// (longest document in sentences, longest sentence in words) among docs[indices], at least 1.
std::pair<Index, Index> padded_shape(const Documents& docs, const std::vector<Index>& indices) {
  Index S = 1, W = 1;
  for (Index i : indices) {
    const DocumentShape& d = docs.shape(static_cast<std::size_t>(i));
    S = std::max<Index>(S, static_cast<Index>(d.sentences));
    W = std::max<Index>(W, static_cast<Index>(d.longest));
  }
  return {S, W};
}

}  // namespace

double Batch::word_padding_fraction() const {
  const double slots = static_cast<double>(word_mask.size());
  return slots == 0 ? 0.0 : 1.0 - static_cast<double>(real_tokens) / slots;
}

double Batch::sentence_padding_fraction() const {
  const double slots = static_cast<double>(sentence_mask.size());
  return slots == 0 ? 0.0 : 1.0 - static_cast<double>(real_sentences) / slots;
}

BatchCounts batch_counts(const Documents& docs, const std::vector<Index>& indices) {
  const auto [S, W] = padded_shape(docs, indices);
  const Index B = static_cast<Index>(indices.size());
  BatchCounts c{0, 0, W * S * B, S * B};
  for (Index i : indices) {
    const DocumentShape& d = docs.shape(static_cast<std::size_t>(i));
    c.real_tokens += static_cast<Index>(d.tokens);
    c.real_sentences += static_cast<Index>(d.sentences);
  }
  return c;
}

Batch answers_batch(const Documents& docs, const std::vector<Index>& indices) {
  const Index B = static_cast<Index>(indices.size());
  Batch batch;
  batch.sentence_mask = Matrix::Zero(0, B);
  batch.labels.resize(B);
  batch.label_sets.resize(B);
  batch.targets.resize(B);
  batch.weights.resize(B);
  batch.documents = indices;
  for (Index b = 0; b < B; ++b) {
    const DocumentView d = docs[indices[b]];
    batch.labels[b] = d.label;
    batch.label_sets[b].assign(d.label_set.begin(), d.label_set.end());
    batch.targets[b] = d.target;
    batch.weights[b] = d.weight;
  }
  return batch;
}

Batch make_batch(const Documents& docs, const std::vector<Index>& indices,
                 Index min_sentences, Index min_words) {
  auto [S, W] = padded_shape(docs, indices);
  S = std::max(S, min_sentences);
  W = std::max(W, min_words);
  const Index B = static_cast<Index>(indices.size());
  Batch batch = answers_batch(docs, indices);
  batch.ids = IdMatrix::Zero(W, S * B);
  batch.word_mask = Matrix::Zero(W, S * B);
  batch.sentence_mask = Matrix::Zero(S, B);
  for (Index b = 0; b < B; ++b) {
    const DocumentView d = docs[indices[b]];
    for (Index s = 0; s < static_cast<Index>(d.sentences.size()); ++s) {
      const auto& words = d.sentences[s];
      batch.sentence_mask(s, b) = 1;
      ++batch.real_sentences;
      for (Index w = 0; w < static_cast<Index>(words.size()); ++w) {
        batch.ids(w, s + S * b) = words[w];
        batch.word_mask(w, s + S * b) = 1;
      }
      batch.real_tokens += static_cast<Index>(words.size());
    }
  }
  return batch;
}

namespace {

// Cuts docs[indices[i]], i in `places`, into at most `shards` contiguous parts of about
// equal real-token counts, each padded to S x W.
std::vector<Batch> cut_shards(const Documents& docs, const std::vector<Index>& indices,
                              const std::vector<Index>& places, int shards, Index S, Index W) {
  const Index n = static_cast<Index>(places.size());
  const Index parts = std::max<Index>(1, std::min<Index>(shards, n));
  // Cut where the running real-token count passes k/parts of the total: threads get equal
  // work (the cost follows real tokens), not merely equal numbers of documents.
  std::vector<std::int64_t> before(n + 1, 0);  // real tokens of the first i documents
  for (Index i = 0; i < n; ++i) before[i + 1] = before[i] + static_cast<std::int64_t>(docs.shape(static_cast<std::size_t>(indices[places[i]])).tokens);
  std::vector<Index> cut(parts + 1, n);
  cut[0] = 0;
  for (Index k = 1; k < parts; ++k) {
    const std::int64_t target = before[n] * k / parts;
    Index i = cut[k - 1] + 1;  // at least one document per part
    while (i < n - (parts - k) && before[i] < target) ++i;
    // The document that crosses the target goes to whichever side leaves the cut nearer.
    if (i > cut[k - 1] + 1 && before[i] >= target && target - before[i - 1] < before[i] - target) --i;
    cut[k] = i;
  }
  std::vector<Batch> out;
  for (Index k = 0; k < parts; ++k) {
    std::vector<Index> part;
    for (Index i = cut[k]; i < cut[k + 1]; ++i) part.push_back(indices[places[i]]);
    out.push_back(make_batch(docs, part, S, W));
    out.back().places.assign(places.begin() + cut[k], places.begin() + cut[k + 1]);
  }
  return out;
}

}  // namespace

std::vector<Batch> make_shards(const Documents& docs, const std::vector<Index>& indices,
                               int shards) {
  const auto [S, W] = padded_shape(docs, indices);
  std::vector<Index> places(indices.size());
  for (std::size_t i = 0; i < places.size(); ++i) places[i] = static_cast<Index>(i);
  return cut_shards(docs, indices, places, shards, S, W);
}

std::vector<Batch> make_share_shards(const Documents& docs, const std::vector<Index>& indices, Index first,
                                     Index last, int shards) {
  const auto [S, W] = padded_shape(docs, indices);
  std::vector<Index> places;
  for (std::size_t i = 0; i < indices.size(); ++i)
    if (indices[i] >= first && indices[i] < last) places.push_back(static_cast<Index>(i));
  if (places.empty()) return {};
  return cut_shards(docs, indices, places, shards, S, W);
}

}  // namespace han
