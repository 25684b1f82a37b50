#include "han/train/rank_agreement.h"

#include <vector>

#include "han/core/hash.h"

namespace han {
namespace {

// The flat arrays whole: equal on every rank exactly when the documents are.
void add_documents(Fnv1a& hash, const Documents& docs) {
  const WordArrays& w = docs.word_arrays();
  hash.add_value(docs.size());
  hash.add_value(w.narrow);
  hash.add(w.words, w.word_count * (w.narrow ? sizeof(std::uint16_t) : sizeof(std::int32_t)));
  hash.add(w.sentence_starts, (w.sentence_count + 1) * sizeof(std::uint64_t));
  hash.add(w.document_starts, (docs.size() + 1) * sizeof(std::uint64_t));
  hash.add(docs.answers().labels.data(), docs.size() * sizeof(std::int32_t));
}

std::uint64_t hash_corpus(const Corpus& corpus) {
  Fnv1a hash;
  for (const std::string& word : corpus.vocab.words()) {
    hash.add(word);
    hash.add("\n");
  }
  for (const std::string& label : corpus.labels) {
    hash.add(label);
    hash.add("\n");
  }
  // A token cache's checksum covers every word: a rank then reads only its share.
  if (corpus.cache_checksum != 0)
    hash.add_value(corpus.cache_checksum);
  else
    for (const auto* split : {&corpus.train, &corpus.dev, &corpus.test}) add_documents(hash, *split);
  return hash.value();
}

}  // namespace

RankInputs hash_rank_inputs(const std::string& version, const Config& cfg, const Corpus& corpus) {
  const std::string config = config_to_json(cfg).dump();
  return {fnv1a(version.data(), version.size()), fnv1a(config.data(), config.size()), hash_corpus(corpus)};
}

void require_same_inputs(Collective& job, const RankInputs& mine) {
  const struct {
    std::uint64_t RankInputs::*field;
    const char* what;
  } parts[] = {{&RankInputs::binary, "han binary (han --version)"},
               {&RankInputs::config, "config"},
               {&RankInputs::data, "data (the documents as read)"}};
  for (const auto& part : parts) {
    const std::vector<std::uint64_t> all = job.all_gather(mine.*part.field);
    for (std::size_t r = 1; r < all.size(); ++r)
      if (all[r] != all[0])
        throw JobWideError("rank " + std::to_string(r) + "'s " + part.what +
                           " differs from rank 0's: every rank must run the same han on the same config and data");
  }
}

}  // namespace han
