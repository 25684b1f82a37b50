// Training end to end on the bundled real data: it learns, and it is deterministic.
#include <catch2/catch.hpp>

#include <chrono>

#include "han/text/batcher.h"
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
  const auto start = std::chrono::steady_clock::now();
  const Corpus corpus = load_corpus(cfg);
  const TrainResult result = train_model(cfg, corpus);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::size_t majority = 0;
  for (std::size_t c = 0; c < corpus.labels.size(); ++c) {
    std::size_t n = 0;
    for (const Document& d : corpus.dev) n += d.label == static_cast<std::int32_t>(c);
    majority = std::max(majority, n);
  }
  const double majority_rate = static_cast<double>(majority) / static_cast<double>(corpus.dev.size());
  const double best = result.history[result.best_epoch - 1].dev_accuracy;
  INFO("dev accuracy " << best << " majority " << majority_rate << " in " << seconds << " s");
  CHECK(best >= majority_rate + 0.15);
  CHECK(seconds < 60);
  CHECK(result.history.back().train_loss < result.history.front().train_loss);
}

TEST_CASE("two trainings with one seed give bit-identical parameters", "[trainer][determinism]") {
  Config cfg = small_config();
  cfg.trainer.epochs = 1;
  cfg.model.dropout = 0.3;  // dropout draws from the seeded generator too
  Corpus corpus = load_corpus(cfg);
  corpus.train.resize(600);
  corpus.dev.resize(100);
  TrainResult a = train_model(cfg, corpus);
  TrainResult b = train_model(cfg, corpus);
  CHECK(same_params(a.best_params, b.best_params));
  cfg.trainer.seed = 2;
  TrainResult c = train_model(cfg, corpus);
  CHECK_FALSE(same_params(a.best_params, c.best_params));
}

TEST_CASE("bucketing groups similar lengths, skips empty documents, and is seeded", "[batcher]") {
  std::vector<Document> docs(300);
  Rng rng(4);
  for (Document& d : docs) {
    d.label = 0;
    const std::size_t sentences = rng.below(20);  // some documents are empty
    for (std::size_t s = 0; s < sentences; ++s) d.sentences.push_back(std::vector<std::int32_t>(1 + rng.below(30), 2));
  }
  Index empty = 0;
  for (const Document& d : docs) empty += d.sentences.empty();
  REQUIRE(empty > 0);
  BatchingConfig cfg;
  cfg.batch_size = 16;
  cfg.maxi_batch = 100;
  const Batcher bucket(docs, cfg, 9);
  CHECK(bucket.skipped_empty() == empty);
  cfg.strategy = BatchStrategy::random;
  const Batcher random(docs, cfg, 9);
  auto padding = [&](const Batcher& b) {
    double slots = 0, real = 0;
    Index seen = 0;
    for (const BatchIndices& idx : b.epoch(1)) {
      const Batch batch = make_batch(docs, idx);
      slots += static_cast<double>(batch.sentence_mask.size());
      real += static_cast<double>(batch.real_sentences);
      seen += batch.size();
    }
    CHECK(seen == static_cast<Index>(docs.size()) - empty);
    return 1 - real / slots;
  };
  CHECK(padding(bucket) < 0.5 * padding(random));
  CHECK(bucket.epoch(1) == bucket.epoch(1));
  CHECK(bucket.epoch(1) != bucket.epoch(2));
}

TEST_CASE("a batch pads to its longest document and sentence and counts padding", "[batch]") {
  std::vector<Document> docs(2);
  docs[0].sentences = {{2, 3, 4}, {5}};
  docs[1].sentences = {{6}};
  docs[0].label = 1;
  docs[1].label = 0;
  const Batch b = make_batch(docs, {0, 1});
  CHECK(b.max_sentences() == 2);
  CHECK(b.max_words() == 3);
  CHECK(b.real_tokens == 5);
  CHECK(b.word_padding_fraction() == Approx(1 - 5.0 / 12));
  CHECK(b.sentence_padding_fraction() == Approx(0.25));
  CHECK(b.ids(2, 0) == 4);
  CHECK(b.word_mask(1, 1) == 0);  // sentence 1 of doc 0 has one word
  CHECK(b.sentence_mask(1, 1) == 0);
  CHECK(b.labels == std::vector<std::int32_t>{1, 0});
  // Shards keep the whole batch's padded shape.
  const std::vector<Batch> shards = make_shards(docs, {0, 1}, 2);
  REQUIRE(shards.size() == 2);
  CHECK(shards[1].max_sentences() == 2);
  CHECK(shards[1].max_words() == 3);
}

TEST_CASE("shards split a batch by real tokens, every document once and in order", "[batch]") {
  std::vector<Document> docs(6);
  docs[0].sentences = {std::vector<std::int32_t>(40, 2), std::vector<std::int32_t>(40, 3)};  // 80 tokens
  for (int i = 1; i < 6; ++i) docs[i].sentences = {std::vector<std::int32_t>(4, 2)};        // 4 tokens each
  auto sizes = [](const std::vector<Batch>& shards) {
    std::vector<Index> out;
    for (const Batch& b : shards) out.push_back(b.size());
    return out;
  };
  CHECK(sizes(make_shards(docs, {0, 1, 2, 3, 4, 5}, 2)) == std::vector<Index>{1, 5});
  CHECK(sizes(make_shards(docs, {1, 2, 3, 4, 5, 0}, 2)) == std::vector<Index>{5, 1});
  CHECK(sizes(make_shards(docs, {1, 2, 3, 4}, 2)) == std::vector<Index>{2, 2});
  CHECK(sizes(make_shards(docs, {0, 1}, 3)) == std::vector<Index>{1, 1});  // never an empty shard
  CHECK(sizes(make_shards(docs, {0, 1, 2}, 3)) == std::vector<Index>{1, 1, 1});
  const std::vector<Batch> shards = make_shards(docs, {3, 0, 5}, 2);
  std::int64_t tokens = 0;
  for (const Batch& b : shards) tokens += b.real_tokens;
  CHECK(tokens == 88);
}
