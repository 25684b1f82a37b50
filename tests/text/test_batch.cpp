// One padded batch (ids, masks, padding counts) and its split into per-thread shards.
#include <catch2/catch.hpp>

#include "han/text/batch.h"

using namespace han;

TEST_CASE("a batch pads to its longest document and sentence and counts padding", "[batch]") {
  std::vector<Document> docs(2);
  docs[0].sentences = {{2, 3, 4}, {5}};
  docs[1].sentences = {{6}};
  docs[0].label = 1;
  docs[1].label = 0;
  const Batch b = make_batch(Documents(docs), {0, 1});
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
  const std::vector<Batch> shards = make_shards(Documents(docs), {0, 1}, 2);
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
  CHECK(sizes(make_shards(Documents(docs), {0, 1, 2, 3, 4, 5}, 2)) == std::vector<Index>{1, 5});
  CHECK(sizes(make_shards(Documents(docs), {1, 2, 3, 4, 5, 0}, 2)) == std::vector<Index>{5, 1});
  CHECK(sizes(make_shards(Documents(docs), {1, 2, 3, 4}, 2)) == std::vector<Index>{2, 2});
  CHECK(sizes(make_shards(Documents(docs), {0, 1}, 3)) == std::vector<Index>{1, 1});  // never an empty shard
  CHECK(sizes(make_shards(Documents(docs), {0, 1, 2}, 3)) == std::vector<Index>{1, 1, 1});
  const std::vector<Batch> shards = make_shards(Documents(docs), {3, 0, 5}, 2);
  std::int64_t tokens = 0;
  for (const Batch& b : shards) tokens += b.real_tokens;
  CHECK(tokens == 88);
}

TEST_CASE("a rank's shards of a batch hold its share's documents, padded to the whole batch, with their places", "[batch]") {
  std::vector<Document> docs(6);
  for (std::size_t i = 0; i < docs.size(); ++i)
    docs[i].sentences.assign(i + 1, std::vector<std::int32_t>(2 * i + 1, 2));  // document i: i+1 sentences of 2i+1 words
  const Documents list(docs);
  const std::vector<Index> batch = {4, 0, 3, 1, 5, 2};
  const std::vector<Batch> mine = make_share_shards(list, batch, 0, 3, 2);  // documents 0, 1, 2
  REQUIRE(mine.size() == 2);
  std::vector<Index> held, places;
  for (const Batch& s : mine) {
    CHECK(s.max_sentences() == 6);  // document 5's
    CHECK(s.max_words() == 11);
    held.insert(held.end(), s.documents.begin(), s.documents.end());
    places.insert(places.end(), s.places.begin(), s.places.end());
  }
  CHECK(held == std::vector<Index>{0, 1, 2});
  CHECK(places == std::vector<Index>{1, 3, 5});
  CHECK(make_share_shards(list, {3, 4}, 0, 3, 2).empty());
  const BatchCounts c = batch_counts(list, {0, 5});
  CHECK(c.real_tokens == 1 + 6 * 11);
  CHECK(c.real_sentences == 7);
  CHECK(c.sentence_slots == 6 * 2);
  CHECK(c.word_slots == 11 * 6 * 2);
}

