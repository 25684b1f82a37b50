#pragma once
// A training run stopped after its first step, as Ctrl-C leaves it: the folder holds
// checkpoint.han (100 documents of the bundled data, a small model).
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

#include "han/text/corpus.h"
#include "han/train/trainer.h"
#include "support/bundled.h"

namespace han::test {

// Trains into `folder` (created) and stops after one step; returns the checkpoint's path.
inline std::string interrupted_run(const std::string& folder) {
  Config cfg = bundled_config(4, 1);
  Corpus corpus = load_corpus(cfg);
  corpus.train.truncate(100);
  TrainOptions options;
  options.output_dir = folder;
  std::filesystem::create_directories(folder);
  int steps = 0;
  options.stop_requested = [&] { return ++steps > 1; };
  REQUIRE(train_model(cfg, corpus, options).interrupted);
  return (std::filesystem::path(folder) / "checkpoint.han").string();
}

}  // namespace han::test
