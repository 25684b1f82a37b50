#pragma once
// A tiny single-label classifier (embedding 8, hidden 4, attention 8; two labels; a
// six-word vocabulary with a non-ASCII word) for tests of files and checkpoints.
#include <cstdint>
#include <string>

#include "han/core/config.h"
#include "han/core/random.h"
#include "han/infer/classifier.h"

namespace han::test {

// The same sizes for `han train` on the command line: --set overrides to append.
inline const std::string kTinyModel =
    " --set model.embedding_dim=8 --set model.word_hidden=4 --set model.sentence_hidden=4 --set model.attention_dim=8";

inline Config small_config() {
  Config cfg;
  cfg.model.embedding_dim = 8;
  cfg.model.word_hidden = 4;
  cfg.model.sentence_hidden = 4;
  cfg.model.attention_dim = 8;
  cfg.model.linear_member = false;  // small_model builds the HAN alone
  return cfg;
}

// Its parameters drawn from `seed`.
inline Classifier small_model(const Config& cfg, std::uint64_t seed) {
  Rng rng(seed);
  const Vocab vocab = Vocab::from_words({"<pad>", "<unk>", "good", "bad", "caf\xc3\xa9", "film"});
  return {cfg, vocab, {"neg", "pos"}, han_init(cfg.model, 6, 2, rng), {}, OutputHead{}};
}

}  // namespace han::test
