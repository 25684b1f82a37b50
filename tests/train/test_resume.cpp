// Training faults: an interrupted run resumes to the very parameters of an uninterrupted
// one; a diverging run stops with a clear message.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "han/text/corpus.h"
#include "han/core/error.h"
#include "han/infer/model_file.h"
#include "han/nn/parameters.h"
#include "han/train/trainer.h"
#include "support/bundled.h"
#include "support/paths.h"

using namespace han;

namespace {

Config tiny_config() {
  Config cfg = han::test::bundled_config(8, 3);
  cfg.model.dropout = 0.2;
  cfg.batching.batch_size = 32;
  return cfg;
}

}  // namespace

TEST_CASE("a run stopped mid-epoch and resumed reaches the uninterrupted parameters", "[trainer][resume]") {
  const Config cfg = tiny_config();
  Corpus corpus = load_corpus(cfg);
  corpus.train.truncate(400);
  corpus.dev.truncate(100);
  const auto dir = han::test::temp_folder("resume");
  TrainOptions straight_options;
  straight_options.output_dir = (dir / "straight").string();
  std::filesystem::create_directories(straight_options.output_dir);
  TrainResult straight = train_model(cfg, corpus, straight_options);

  TrainOptions options;
  options.output_dir = (dir / "stopped").string();
  std::filesystem::create_directories(options.output_dir);
  int steps = 0;
  options.stop_requested = [&] { return ++steps > 17; };  // inside epoch 2 (13 batches per epoch)
  const TrainResult first = train_model(cfg, corpus, options);
  REQUIRE(first.interrupted);
  REQUIRE(std::filesystem::exists(dir / "stopped" / "checkpoint.han"));
  CHECK(first.history.size() == 1);

  options.stop_requested = nullptr;
  options.resume = true;
  TrainResult resumed = train_model(cfg, corpus, options);
  CHECK_FALSE(resumed.interrupted);
  CHECK_FALSE(std::filesystem::exists(dir / "stopped" / "checkpoint.han"));
  REQUIRE(resumed.history.size() == straight.history.size());
  CHECK(resumed.best_epoch == straight.best_epoch);
  for (const ParamRef& r : zip_params(resumed.last_params, straight.last_params)) {
    INFO(r.name);
    CHECK(r.value->cwiseEqual(*r.grad).all());
  }
  for (const ParamRef& r : zip_params(resumed.best_params, straight.best_params)) CHECK(r.value->cwiseEqual(*r.grad).all());
  for (std::size_t e = 0; e < straight.history.size(); ++e) {
    CHECK(resumed.history[e].train_loss == straight.history[e].train_loss);
    CHECK(resumed.history[e].dev_accuracy == straight.history[e].dev_accuracy);
  }
}

TEST_CASE("a diverging run stops naming the epoch and step, keeping the best model so far", "[trainer][nan]") {
  Config cfg = tiny_config();
  Corpus corpus = load_corpus(cfg);
  corpus.train.truncate(320);
  corpus.dev.truncate(50);
  // SGD with lr 10 and weight decay 1 multiplies every weight by -9 per step: after
  // about 40 steps (epoch 4 of 10 steps each) the weights overflow and the loss is NaN.
  cfg.optimizer.name = OptimizerName::sgd;
  cfg.optimizer.lr = 10;
  cfg.optimizer.weight_decay = 1;
  cfg.optimizer.momentum = 0;
  cfg.optimizer.clip_norm = 0;
  cfg.trainer.epochs = 20;
  cfg.trainer.patience = 0;
  const auto dir = han::test::temp_folder("nan");
  TrainOptions options;
  options.output_dir = dir.string();
  try {
    train_model(cfg, corpus, options);
    FAIL("training should have stopped");
  } catch (const Error& e) {
    const std::string message = e.what();
    INFO(message);
    CHECK(e.exit_code() == 1);
    CHECK(message.find("training diverged at epoch ") != std::string::npos);
    CHECK(message.find(", step ") != std::string::npos);
    CHECK((message.find("is NaN") != std::string::npos || message.find("is infinite") != std::string::npos));
    CHECK(message.find((dir / "model.han").string()) != std::string::npos);
  }
  // The model kept is the best epoch's before the divergence: finite, and the epoch that
  // metrics.jsonl marks best last.
  const han::ModelFileContents kept = han::load_model_file((dir / "model.han").string());
  for (const han::NamedTensor& t : kept.tensors) {
    INFO(t.name);
    CHECK(t.value.allFinite());
  }
  std::ifstream metrics(dir / "metrics.jsonl");
  std::string line;
  int best = 0, epochs = 0;
  while (std::getline(metrics, line)) {
    const nlohmann::json m = nlohmann::json::parse(line);
    ++epochs;
    if (m.value("best", false)) best = m.at("epoch").get<int>();
  }
  CHECK(epochs >= 1);
  CHECK(best >= 1);
  CHECK(kept.header.at("trained").at("best_epoch") == best);
}
