// Batching: documents grouped into seeded batches by the bucket or random strategy.
#include <catch2/catch.hpp>

#include "han/core/random.h"
#include "han/text/batch.h"
#include "han/text/batcher.h"

using namespace han;

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
  const Documents list(docs);
  BatchingConfig cfg;
  cfg.batch_size = 16;
  cfg.maxi_batch = 100;
  const Batcher bucket(list, cfg, 9);
  CHECK(bucket.skipped_empty() == empty);
  cfg.strategy = BatchStrategy::random;
  const Batcher random(list, cfg, 9);
  auto padding = [&](const Batcher& b) {
    double slots = 0, real = 0;
    Index seen = 0;
    for (const BatchIndices& idx : b.epoch(1)) {
      const Batch batch = make_batch(list, idx);
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

TEST_CASE("batches_within keeps a share's documents in their batches' order and drops emptied batches", "[batcher]") {
  const std::vector<BatchIndices> batches = {{5, 1, 7}, {0, 9}, {3, 2, 8, 4}};
  CHECK(batches_within(batches, 2, 6) == std::vector<BatchIndices>{{5}, {3, 2, 4}});
  CHECK(batches_within(batches, 0, 10) == batches);
  CHECK(batches_within(batches, 6, 6).empty());
}
