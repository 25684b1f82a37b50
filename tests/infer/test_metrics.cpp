// Classification metrics against a hand computation, including a class never predicted
// and a class never present in the gold labels.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "han/infer/metrics.h"

using namespace han;
using Counts = std::vector<std::int64_t>;

TEST_CASE("metrics: accuracy, per-class scores, macro-F1 and confusion against a hand count", "[metrics]") {
  // Class 2 is never predicted; class 3 is predicted once but never the gold label.
  const std::vector<std::int32_t> gold = {0, 0, 0, 0, 1, 1, 1, 2, 2};
  const std::vector<std::int32_t> pred = {0, 0, 0, 1, 1, 1, 0, 3, 0};
  const Metrics m = compute_metrics(gold, pred, 4);
  CHECK(m.total == 9);
  CHECK(m.accuracy == Approx(5.0 / 9));
  REQUIRE(m.confusion.size() == 4);
  CHECK(m.confusion[0] == Counts{3, 1, 0, 0});  // rows gold, columns predicted
  CHECK(m.confusion[1] == Counts{1, 2, 0, 0});
  CHECK(m.confusion[2] == Counts{1, 0, 0, 1});
  CHECK(m.confusion[3] == Counts{0, 0, 0, 0});
  REQUIRE(m.per_class.size() == 4);
  // Class 0: 3 of 5 predictions right, 3 of 4 documents found.
  CHECK(m.per_class[0].precision == Approx(3.0 / 5));
  CHECK(m.per_class[0].recall == Approx(3.0 / 4));
  CHECK(m.per_class[0].f1 == Approx(2.0 / 3));
  CHECK(m.per_class[0].support == 4);
  CHECK(m.per_class[1].precision == Approx(2.0 / 3));
  CHECK(m.per_class[1].recall == Approx(2.0 / 3));
  CHECK(m.per_class[1].f1 == Approx(2.0 / 3));
  CHECK(m.per_class[1].support == 3);
  // Never predicted: precision 0/0 counts as 0, and so does its F1.
  CHECK(m.per_class[2].precision == 0);
  CHECK(m.per_class[2].recall == 0);
  CHECK(m.per_class[2].f1 == 0);
  CHECK(m.per_class[2].support == 2);
  // Never present: recall 0/0 counts as 0; the class still weighs in the macro mean.
  CHECK(m.per_class[3].precision == 0);
  CHECK(m.per_class[3].recall == 0);
  CHECK(m.per_class[3].f1 == 0);
  CHECK(m.per_class[3].support == 0);
  CHECK(m.macro_f1 == Approx((2.0 / 3 + 2.0 / 3 + 0 + 0) / 4));

  const nlohmann::json j = metrics_to_json(m, {"a", "b", "c", "d"});
  CHECK(j["documents"] == 9);
  CHECK(j["accuracy"].get<double>() == Approx(5.0 / 9));
  CHECK(j["per_class"]["a"]["support"] == 4);
  CHECK(j["per_class"]["d"]["f1"].get<double>() == 0);
  CHECK(j["confusion"]["labels"] == nlohmann::json({"a", "b", "c", "d"}));
  CHECK(j["confusion"]["matrix"][2] == nlohmann::json({1, 0, 0, 1}));
  const std::string text = metrics_to_text(m, {"a", "b", "c", "d"});
  CHECK_THAT(text, Catch::Contains("documents 9  accuracy 0.5556  macro-F1 0.3333"));
}

TEST_CASE("metrics: all right, all wrong, and no documents", "[metrics]") {
  const Metrics right = compute_metrics({0, 1, 1, 2}, {0, 1, 1, 2}, 3);
  CHECK(right.accuracy == 1);
  CHECK(right.macro_f1 == Approx(1));
  CHECK(right.confusion[1] == Counts{0, 2, 0});

  const Metrics wrong = compute_metrics({0, 0, 1}, {1, 1, 0}, 2);
  CHECK(wrong.accuracy == 0);
  CHECK(wrong.macro_f1 == 0);
  CHECK(wrong.confusion[0] == Counts{0, 2});
  CHECK(wrong.confusion[1] == Counts{1, 0});

  const Metrics none = compute_metrics({}, {}, 2);
  CHECK(none.total == 0);
  CHECK(none.accuracy == 0);
  CHECK(none.macro_f1 == 0);
  CHECK(none.confusion == std::vector<Counts>{{0, 0}, {0, 0}});
  CHECK(none.per_class[0].support == 0);
}
