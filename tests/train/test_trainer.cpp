// Training end to end on the bundled real data: it learns, and it is deterministic.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <set>

#include "han/text/corpus.h"
#include "han/nn/parameters.h"
#include "han/train/trainer.h"
#include "support/bundled.h"

using namespace han;

namespace {

Config small_config() {
  Config cfg = han::test::bundled_config(24, 3);
  cfg.optimizer.lr = 0.003;
  return cfg;
}

bool same_params(HanParams& a, HanParams& b) {
  bool same = true;
  for (const ParamRef& r : zip_params(a, b)) same = same && (*r.value).cwiseEqual(*r.grad).all();
  return same;
}

}  // namespace

TEST_CASE("a small HAN learns the bundled IMDB slice well above the majority class", "[trainer][learning]") {
  const Config cfg = small_config();
  const Corpus corpus = load_corpus(cfg);
  const TrainResult result = train_model(cfg, corpus);
  std::size_t majority = 0;
  for (std::size_t c = 0; c < corpus.labels.size(); ++c) {
    std::size_t n = 0;
    for (const DocumentView d : corpus.dev) n += d.label == static_cast<std::int32_t>(c);
    majority = std::max(majority, n);
  }
  const double majority_rate = static_cast<double>(majority) / static_cast<double>(corpus.dev.size());
  const double best = result.history[result.best_epoch - 1].dev_accuracy;
  INFO("dev accuracy " << best << " majority " << majority_rate);
  CHECK(best >= majority_rate + 0.15);
  CHECK(result.history.back().train_loss < result.history.front().train_loss);
}

TEST_CASE("two trainings with one seed give bit-identical parameters", "[trainer][determinism]") {
  Config cfg = small_config();
  cfg.trainer.epochs = 1;
  cfg.model.dropout = 0.3;  // dropout draws from the seeded generator too
  Corpus corpus = load_corpus(cfg);
  corpus.train.truncate(600);
  corpus.dev.truncate(100);
  TrainResult a = train_model(cfg, corpus);
  TrainResult b = train_model(cfg, corpus);
  CHECK(same_params(a.best_params, b.best_params));
  cfg.trainer.seed = 2;
  TrainResult c = train_model(cfg, corpus);
  CHECK_FALSE(same_params(a.best_params, c.best_params));
}

TEST_CASE("trainer.select picks the best epoch by dev accuracy, macro-F1 or loss", "[trainer][select]") {
  Config cfg = small_config();
  cfg.trainer.epochs = 6;
  cfg.trainer.patience = 0;
  cfg.optimizer.lr = 0.005;  // overfits 600 documents: dev loss turns up an epoch before accuracy peaks
  // The vocabulary of the caps' words (the member reading only them): on it, the metrics
  // disagree; the HAN reads the same words either way.
  cfg.model.linear_text = LinearText::caps;
  Corpus corpus = load_corpus(cfg);
  corpus.train.truncate(600);
  corpus.dev.truncate(150);
  std::vector<int> picks;
  for (SelectMetric metric : {SelectMetric::accuracy, SelectMetric::macro_f1, SelectMetric::loss}) {
    cfg.trainer.select = metric;
    const TrainResult r = train_model(cfg, corpus);
    INFO(to_string(metric));
    REQUIRE(r.history.size() == 6);
    std::size_t best = 0;
    for (std::size_t e = 1; e < r.history.size(); ++e) {
      const EpochRecord &x = r.history[e], &b = r.history[best];
      REQUIRE(std::isfinite(x.dev_loss));
      const bool better = metric == SelectMetric::loss       ? x.dev_loss < b.dev_loss
                          : metric == SelectMetric::macro_f1 ? x.dev_macro_f1 > b.dev_macro_f1
                                                             : x.dev_accuracy > b.dev_accuracy;
      if (better) best = e;
    }
    CHECK(r.best_epoch == static_cast<int>(best) + 1);
    picks.push_back(r.best_epoch);
  }
  // The same training each time: the metrics must disagree somewhere for this to test anything.
  CHECK(std::set<int>(picks.begin(), picks.end()).size() > 1);
}

TEST_CASE("an epoch that ties the best dev score with a lower dev loss becomes the best", "[trainer][select]") {
  Config cfg = small_config();
  cfg.trainer.epochs = 5;
  cfg.trainer.patience = 0;
  cfg.model.linear_member = false;
  Corpus corpus = load_corpus(cfg);
  corpus.train.truncate(300);
  corpus.dev.truncate(4);  // four documents: few distinct accuracies, so epochs tie
  const TrainResult r = train_model(cfg, corpus);
  REQUIRE(r.history.size() == 5);
  std::size_t best = 0;
  bool tie_broken_by_loss = false;
  for (std::size_t e = 1; e < r.history.size(); ++e) {
    const EpochRecord &x = r.history[e], &b = r.history[best];
    const double xs = x.dev_accuracy + 1e-6 * x.dev_macro_f1, bs = b.dev_accuracy + 1e-6 * b.dev_macro_f1;
    const bool tie_lower_loss = xs == bs && x.dev_loss < b.dev_loss;
    tie_broken_by_loss = tie_broken_by_loss || tie_lower_loss;
    if (xs > bs || tie_lower_loss) best = e;
  }
  CHECK(r.best_epoch == static_cast<int>(best) + 1);
  CHECK(tie_broken_by_loss);  // else this data has no tie for the rule to break
}

TEST_CASE("optimizer.lazy_embeddings: deterministic, and its table apart from dense Adam's after an epoch",
          "[trainer][determinism][lazy]") {
  Config cfg = small_config();
  cfg.trainer.epochs = 1;
  cfg.trainer.threads = 2;
  Corpus corpus = load_corpus(cfg);
  corpus.train.truncate(600);
  corpus.dev.truncate(100);
  const TrainResult dense = train_model(cfg, corpus);
  cfg.optimizer.lazy_embeddings = true;
  TrainResult a = train_model(cfg, corpus);
  TrainResult b = train_model(cfg, corpus);
  CHECK(same_params(a.best_params, b.best_params));
  // The rows differ once a row skipped by a batch would have moved on by its momentum.
  const Matrix& lazy_table = a.best_params.embedding.table;
  const Matrix& dense_table = dense.best_params.embedding.table;
  CHECK((lazy_table - dense_table).cwiseAbs().maxCoeff() > 1e-4f);
  // The rest of the network is trained as before: within a loose band of dense Adam's.
  CHECK(std::abs(a.history.back().dev_accuracy - dense.history.back().dev_accuracy) < 0.15);
}
