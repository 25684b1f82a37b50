// bag_top_words: what han info shows of a model's bag-of-words term.
#include <catch2/catch.hpp>

#include "han/infer/bag_words.h"

using namespace han;

namespace {

Classifier bag_classifier(Task task, std::vector<std::string> labels, Index outputs, int members) {
  Config cfg;
  cfg.model.embedding_dim = 4;
  cfg.model.word_hidden = 2;
  cfg.model.sentence_hidden = 2;
  cfg.model.attention_dim = 2;
  cfg.model.bag = Bag::words;
  cfg.model.task = task;
  cfg.trainer.ensemble = members;
  Rng rng(3);
  Classifier c{cfg, Vocab::from_words({"<pad>", "<unk>", "good", "bad", "film", "dull"}), std::move(labels),
               han_init(cfg.model, 6, outputs, rng), {}, initial_head(task, 0)};
  for (int k = 1; k < members; ++k) c.more_members.push_back(han_init(cfg.model, 6, outputs, rng));
  return c;
}

}  // namespace

TEST_CASE("bag words: each label's words by weight above the labels' mean, members averaged, PAD and UNK left out",
          "[bag]") {
  Classifier c = bag_classifier(Task::single, {"neg", "pos", "meh"}, 3, 2);
  // Columns: <pad> <unk> good bad film dull. "film" is weighed alike by every label.
  c.params.bag.W << 9, 9, 0, 4, 1, 2,  //
      0, 0, 4, 0, 1, 0,                 //
      0, 0, 2, 0, 1, 1;
  c.more_members[0].bag.W << 9, 9, 0, 2, 1, 2,  //
      0, 0, 2, 0, 1, 0,                          //
      0, 0, 0, 0, 1, 1;
  const std::vector<BagLeaning> top = bag_top_words(c, 5);
  REQUIRE(top.size() == 3);
  // Mean weights: neg (0, 3, 1, 2), pos (3, 0, 1, 0), meh (1, 0, 1, 1); column means (4/3, 1, 1, 1).
  CHECK(top[0].answer == "neg");
  REQUIRE(top[0].words.size() == 2);  // bad 2, dull 1; good and film do not lean to neg
  CHECK(top[0].words[0].first == "bad");
  CHECK(top[0].words[0].second == Approx(2));
  CHECK(top[0].words[1].first == "dull");
  CHECK(top[1].answer == "pos");
  REQUIRE(top[1].words.size() == 1);
  CHECK(top[1].words[0].first == "good");
  CHECK(top[1].words[0].second == Approx(3 - 4.0 / 3));
  CHECK(top[2].words.empty());  // meh weighs no word above the labels' mean
  CHECK(bag_top_words(c, 1)[0].words.size() == 1);

  c.config.model.bag = Bag::none;
  CHECK(bag_top_words(c, 5).empty());
}

TEST_CASE("bag words of a regression model lean higher or lower", "[bag]") {
  Classifier c = bag_classifier(Task::regression, {}, 1, 1);
  c.params.bag.W << 5, -5, 0.5, -2, 0, 1;
  const std::vector<BagLeaning> top = bag_top_words(c, 3);
  REQUIRE(top.size() == 2);
  CHECK(top[0].answer == "higher");
  REQUIRE(top[0].words.size() == 2);
  CHECK(top[0].words[0].first == "dull");
  CHECK(top[0].words[1].first == "good");
  CHECK(top[1].answer == "lower");
  REQUIRE(top[1].words.size() == 1);
  CHECK(top[1].words[0].first == "bad");
  CHECK(top[1].words[0].second == Approx(2));
}
