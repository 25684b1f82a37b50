// Checkpoints (train/checkpoint): the training progress and the optimizer state survive
// a save and a load exactly; a checkpoint from other data or another config is refused.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "han/core/error.h"
#include "han/train/checkpoint.h"
#include "support/paths.h"
#include "support/small_model.h"

using namespace han;
using han::test::small_config;
using han::test::small_model;

namespace {

void random_gradients(HanParams& grads, std::uint64_t seed) {
  Rng rng(seed);
  HanParams::fields(grads, [&](const std::string&, Matrix& m) {
    for (Index i = 0; i < m.size(); ++i) m.data()[i] = static_cast<Scalar>(rng.uniform(-1, 1));
  });
}

TrainState some_state() {
  TrainState s;
  s.epoch = 3;
  s.next_batch = 7;
  s.loss_sum = 12.5;
  s.epoch_seconds = 1.25;
  s.docs_seen = 224;
  s.tokens_seen = 9000;
  s.sentences_seen = 800;
  s.word_slots = 12000;
  s.sentence_slots = 1000;
  s.best_epoch = 2;
  s.best_score = 0.75;
  s.epochs_without_gain = 1;
  EpochRecord r;
  r.epoch = 1;
  r.train_loss = 0.69;
  r.dev_accuracy = r.dev_macro_f1 = std::numeric_limits<double>::quiet_NaN();  // no dev set
  r.best = true;
  s.history = {r, r};
  s.history[1].epoch = 2;
  return s;
}

}  // namespace

TEST_CASE("training progress round-trips through JSON, NaN and infinite figures included", "[checkpoint]") {
  const TrainState s = some_state();
  const TrainState back = TrainState::from_json(nlohmann::json::parse(s.to_json().dump()));
  CHECK(back.to_json() == s.to_json());
  CHECK(back.next_batch == 7);
  CHECK(back.tokens_seen == 9000);
  REQUIRE(back.history.size() == 2);
  CHECK(std::isnan(back.history[0].dev_accuracy));
  CHECK(back.history[1].epoch == 2);

  const TrainState fresh;
  CHECK(fresh.to_json()["best_score"].is_null());
  CHECK(TrainState::from_json(fresh.to_json()).best_score == -std::numeric_limits<double>::infinity());

  TrainState restarted = s;
  restarted.start_epoch(4);
  CHECK(restarted.epoch == 4);
  CHECK(restarted.next_batch == 0);
  CHECK(restarted.docs_seen == 0);
  CHECK(restarted.best_epoch == 2);  // the run's bookkeeping stays
  CHECK(restarted.history.size() == 2);
}

TEST_CASE("a checkpoint restores parameters, optimizer state and progress exactly", "[checkpoint]") {
  const test::TempDir dir;
  const std::string path = dir.file("checkpoint.han");
  const Config cfg = small_config();
  Classifier model = small_model(cfg, 1);
  HanParams grads = zeros_like(model.params);
  auto optimizer = make_optimizer(cfg.optimizer);
  for (std::uint64_t step = 0; step < 3; ++step) {
    random_gradients(grads, 10 + step);
    optimizer->step(zip_params(model.params, grads), 0.01);
  }
  save_checkpoint(path, model, *optimizer, zip_params(model.params, grads), some_state());

  Classifier restored = small_model(cfg, 2);  // other initial values, all replaced
  HanParams restored_grads = zeros_like(restored.params);
  auto restored_optimizer = make_optimizer(cfg.optimizer);
  const TrainState state =
      load_checkpoint(path, restored, *restored_optimizer, zip_params(restored.params, restored_grads));
  CHECK(state.to_json() == some_state().to_json());
  CHECK(restored_optimizer->steps() == 3);

  // The next step from both gives the same parameters only if Adam's moments came back.
  random_gradients(grads, 99);
  random_gradients(restored_grads, 99);
  optimizer->step(zip_params(model.params, grads), 0.01);
  restored_optimizer->step(zip_params(restored.params, restored_grads), 0.01);
  for (const ParamRef& r : zip_params(restored.params, model.params)) {
    INFO(r.name);
    CHECK(r.value->cwiseEqual(*r.grad).all());
  }
}

TEST_CASE("a checkpoint from other data, another config or with a broken state is refused", "[checkpoint]") {
  const test::TempDir dir;
  const std::string path = dir.file("checkpoint.han");
  const Config cfg = small_config();
  Classifier model = small_model(cfg, 1);
  HanParams grads = zeros_like(model.params);
  auto optimizer = make_optimizer(cfg.optimizer);
  save_checkpoint(path, model, *optimizer, zip_params(model.params, grads), some_state());

  auto refused = [&](Classifier other, const std::string& reason) {
    HanParams g = zeros_like(other.params);
    auto opt = make_optimizer(other.config.optimizer);
    try {
      load_checkpoint(path, other, *opt, zip_params(other.params, g));
      FAIL("the checkpoint was accepted");
    } catch (const Error& e) {
      const std::string message = e.what();
      INFO(message);
      CHECK(message.rfind(path + ": ", 0) == 0);
      CHECK(message.find(reason) != std::string::npos);
    }
  };
  Classifier relabelled = small_model(cfg, 1);
  relabelled.labels = {"negative", "positive"};
  refused(relabelled, "the training data changed");
  Config other_cfg = cfg;
  other_cfg.optimizer.lr = 0.5;
  refused(small_model(other_cfg, 1), "the config changed");

  std::vector<NamedTensor> optimizer_state;
  for (const ParamRef& r : optimizer->state(zip_params(model.params, grads)))
    optimizer_state.push_back({"optimizer." + r.name, *r.value});
  save_classifier(path, model, {{"checkpoint", {{"epoch", 2}}}, {"optimizer_steps", 0}}, optimizer_state);
  refused(small_model(cfg, 1), "checkpoint is corrupted (training state)");
  save_classifier(path, model, {{"checkpoint", some_state().to_json()}, {"optimizer_steps", 0}});
  refused(small_model(cfg, 1), "checkpoint is corrupted (optimizer state ");
}
