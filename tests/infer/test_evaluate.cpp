// Scoring (infer/evaluation): the one way training, the ablation, `han train` and
// `han eval` turn predictions into metrics, and the batches held-out data is scored in.
#include <catch2/catch.hpp>

#include "han/core/random.h"
#include "han/infer/evaluation.h"
#include "han/text/corpus.h"
#include "han/train/trainer.h"
#include "support/bundled.h"
#include "support/documents.h"

using namespace han;

namespace {

std::vector<Document> documents(int n) { return test::random_documents(n, 7); }

ModelConfig small_model() {
  ModelConfig m;
  m.embedding_dim = 8;
  m.word_hidden = 4;
  m.sentence_hidden = 4;
  m.attention_dim = 8;
  return m;
}

}  // namespace

TEST_CASE("seed streams keep their numbers: they are part of every trained model", "[evaluate][seed]") {
  CHECK(static_cast<std::uint64_t>(SeedStream::init) == 1);
  CHECK(static_cast<std::uint64_t>(SeedStream::batches) == 2);
  CHECK(static_cast<std::uint64_t>(SeedStream::dropout) == 3);
  CHECK(static_cast<std::uint64_t>(SeedStream::dev_batches) == 4);
  CHECK(derive_seed(9, SeedStream::dropout, 17) == derive_seed(9, 3, 17));
  CHECK(derive_seed(9, SeedStream::init) != derive_seed(9, SeedStream::batches));
}

TEST_CASE("evaluate scores the most probable class of each document against its gold label", "[evaluate]") {
  const ModelConfig cfg = small_model();
  Rng rng(3);
  const HanParams params = han_init(cfg, 30, 3, rng);
  const Predictor predictor(params, cfg, 2);
  std::vector<Document> docs = documents(40);
  const std::vector<std::int32_t> predicted = argmax_columns(predictor.predict(Documents(docs), 8));

  for (std::size_t i = 0; i < docs.size(); ++i) docs[i].label = predicted[i];
  const Metrics right = evaluate(predictor, Documents(docs), 8);
  CHECK(right.total == 40);
  CHECK(right.accuracy == 1.0);
  CHECK(right.confusion.size() == 3);

  for (std::size_t i = 0; i < docs.size(); ++i) docs[i].label = (predicted[i] + 1) % 3;
  const Metrics wrong = evaluate(predictor, Documents(docs), 8);
  CHECK(wrong.accuracy == 0.0);
  CHECK(wrong.macro_f1 == 0.0);
  for (std::size_t i = 0; i < docs.size(); ++i) CHECK(wrong.confusion[docs[i].label][predicted[i]] > 0);

  SECTION("over given batches, with the attention mass on padding") {
    PaddingAttention padding;
    const std::vector<BatchIndices> batches = {{0, 1, 2, 3, 4}, {5, 6, 7, 8, 9, 10, 11, 12, 13, 14},
                                               {15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29},
                                               {30, 31, 32, 33, 34, 35, 36, 37, 38, 39}};
    const Metrics m = evaluate(predictor, Documents(docs), batches, &padding);
    CHECK(m.total == 40);
    CHECK(m.accuracy == 0.0);
    CHECK(padding.word_rows > 0);
    CHECK(padding.sentence_rows > 0);
  }
}

TEST_CASE("held-out documents are scored in batches padded as training pads them, seeded by the run", "[evaluate]") {
  const std::vector<Document> docs = documents(50);
  Config cfg;
  cfg.batching.batch_size = 8;
  cfg.trainer.seed = 5;
  cfg.batching.strategy = BatchStrategy::bucket;
  CHECK(scoring_batches(Documents(docs), cfg) == inference_batches(Documents(docs), 8));

  cfg.batching.strategy = BatchStrategy::random;
  const std::vector<BatchIndices> batches = scoring_batches(Documents(docs), cfg);
  CHECK(batches == evaluation_batches(Documents(docs), BatchStrategy::random, 8, derive_seed(5, SeedStream::dev_batches)));
  std::vector<int> seen(docs.size(), 0);
  for (const BatchIndices& b : batches) {
    CHECK(b.size() <= 8);
    for (Index i : b) ++seen[i];
  }
  CHECK(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
  CHECK(scoring_batches(Documents(docs), cfg) == batches);
  cfg.trainer.seed = 6;
  CHECK(scoring_batches(Documents(docs), cfg) != batches);
}

TEST_CASE("the dev score training records is evaluate over the scoring batches", "[evaluate][trainer]") {
  Config cfg = han::test::bundled_config(8, 1);
  cfg.optimizer.lr = 0.01;
  cfg.model.mask = MaskMode::none;  // padding then changes the answers: the batches matter
  cfg.batching.strategy = BatchStrategy::random;
  cfg.batching.batch_size = 16;
  Corpus corpus = load_corpus(cfg);
  corpus.train.truncate(600);
  corpus.dev.truncate(120);
  const TrainResult r = train_model(cfg, corpus);
  REQUIRE(r.history.size() == 1);
  const Predictor predictor(r.best_params, cfg.model, cfg.trainer.threads);
  const Metrics dev = evaluate(predictor, corpus.dev, scoring_batches(corpus.dev, cfg));
  CHECK(r.history[0].dev_accuracy == dev.accuracy);
  CHECK(r.history[0].dev_macro_f1 == dev.macro_f1);
  // The check above tells the batchings apart: sorted batches (little padding) score otherwise.
  const Metrics sorted = evaluate(predictor, corpus.dev, inference_batches(corpus.dev, cfg.batching.batch_size));
  CHECK(sorted.macro_f1 != dev.macro_f1);
}
