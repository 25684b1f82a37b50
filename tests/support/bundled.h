#pragma once
// A training config on the bundled data with a small model of width `hidden`
// (embedding and attention 2 * hidden), 2 threads: seconds per epoch.
#include "han/core/config.h"
#include "support/paths.h"

namespace han::test {

inline Config bundled_config(int hidden, int epochs) {
  Config cfg;
  cfg.data.train = source_path("data/train.jsonl");
  cfg.data.dev = source_path("data/dev.jsonl");
  cfg.tokenizer.min_count = 3;
  cfg.model.embedding_dim = 2 * hidden;
  cfg.model.word_hidden = hidden;
  cfg.model.sentence_hidden = hidden;
  cfg.model.attention_dim = 2 * hidden;
  cfg.trainer.epochs = epochs;
  cfg.trainer.threads = 2;
  return cfg;
}

}  // namespace han::test
