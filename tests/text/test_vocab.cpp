#include <catch2/catch.hpp>
#include <cstring>

#include <string>
#include <utility>
#include <vector>

#include "han/core/error.h"
#include "han/text/tokenizer.h"
#include "han/text/vocab.h"

using han::TokenizedText;
using han::Vocab;
using han::VocabBuilder;
using han::MinCountChoice;
using han::kAutoMinCountLeast;
using han::kAutoMinCountMost;

namespace {

using Words = std::vector<std::string>;

VocabBuilder builder_with_counts() {
  // the:5 cat:3 dog:3 ant:3 zebra:1 émile:3 (é sorts after ASCII by bytes)
  VocabBuilder b;
  b.add(TokenizedText{{"the", "cat", "the", "dog"}, {"the", "zebra"}});
  b.add(TokenizedText{{"the", "cat", "ant", "\u00E9mile"}, {"dog", "the"}});
  b.add(TokenizedText{{"cat", "ant", "dog", "ant", "\u00E9mile", "\u00E9mile"}});
  return b;
}

}  // namespace

TEST_CASE("vocab: default has PAD and UNK only", "[vocab]") {
  const Vocab v;
  REQUIRE(v.size() == 2);
  CHECK(v.word(Vocab::kPad) == "<pad>");
  CHECK(v.word(Vocab::kUnk) == "<unk>");
  CHECK(v.id("<pad>") == Vocab::kPad);
  CHECK(v.id("anything") == Vocab::kUnk);
}

TEST_CASE("vocab: ordering by count then bytes", "[vocab]") {
  const VocabBuilder b = builder_with_counts();
  CHECK(b.distinct_words() == 6);
  const Vocab v = b.build(1, 0);
  CHECK(v.words() == Words{"<pad>", "<unk>", "the", "ant", "cat", "dog", "\u00E9mile", "zebra"});
  CHECK(v.id("the") == 2);
  CHECK(v.id("ant") == 3);
  CHECK(v.id("zebra") == 7);
  CHECK(v.id("missing") == Vocab::kUnk);
  CHECK(v.word(6) == "\u00E9mile");
}

TEST_CASE("vocab: min_count and max_size", "[vocab]") {
  const VocabBuilder b = builder_with_counts();
  CHECK(b.build(3, 0).words() == Words{"<pad>", "<unk>", "the", "ant", "cat", "dog", "\u00E9mile"});
  CHECK(b.build(4, 0).words() == Words{"<pad>", "<unk>", "the"});
  CHECK(b.build(6, 0).words() == Words{"<pad>", "<unk>"});
  // max_size counts PAD and UNK; ties are cut in byte order.
  CHECK(b.build(1, 4).words() == Words{"<pad>", "<unk>", "the", "ant"});
  CHECK(b.build(1, 2).words() == Words{"<pad>", "<unk>"});
  CHECK(b.build(1, 100).size() == 8);
  CHECK(b.build(3, 5).words() == Words{"<pad>", "<unk>", "the", "ant", "cat"});
}

TEST_CASE("vocab: min_count auto keeps 6 unless its words hold under 95% of the tokens, and never goes under 2", "[vocab]") {
  const auto builder = [](std::vector<std::pair<std::string, std::int64_t>> counts) {
    VocabBuilder b;
    for (const auto& [w, n] : counts) b.add(w, n);
    return b.choose_min_count();
  };
  // 95 of 100 tokens are words seen 6 times or more: the paper's threshold stays.
  MinCountChoice c = builder({{"a", 95}, {"b", 1}, {"c", 1}, {"d", 1}, {"e", 1}, {"f", 1}});
  CHECK(c.min_count == 6);
  CHECK(c.kept_fraction == Approx(0.95));
  // One token more of a rare word: under 95% down to 2, and no lower (words seen once stay out).
  c = builder({{"a", 95}, {"b", 1}, {"c", 1}, {"d", 1}, {"e", 1}, {"f", 1}, {"g", 1}});
  CHECK(c.min_count == kAutoMinCountLeast);
  CHECK(c.kept_fraction == Approx(95.0 / 101.0));
  // A word seen 5 times brings 90% up to 95%: the threshold stops at 5.
  c = builder({{"a", 90}, {"b", 5}, {"c", 1}, {"d", 1}, {"e", 1}, {"f", 1}, {"g", 1}});
  CHECK(c.min_count == 5);
  CHECK(c.kept_fraction == Approx(0.95));
  // Short texts: mostly words seen twice.
  c = builder({{"a", 12}, {"b", 2}, {"c", 2}, {"d", 2}, {"e", 2}, {"f", 1}});
  CHECK(c.min_count == 2);
  CHECK(c.kept_fraction == Approx(20.0 / 21.0));
  c = builder({});
  CHECK(c.min_count == kAutoMinCountMost);
}

TEST_CASE("vocab: from_words round trip and validation", "[vocab]") {
  const Vocab v = builder_with_counts().build(1, 0);
  const Vocab w = Vocab::from_words(v.words());
  const std::vector<std::string> words = v.words();
  CHECK(w.words() == words);
  for (std::size_t i = 0; i < v.size(); ++i) {
    CHECK(w.id(words[i]) == static_cast<std::int32_t>(i));
  }
  CHECK_THROWS_AS(Vocab::from_words({}), han::Error);
  CHECK_THROWS_AS(Vocab::from_words({"<pad>"}), han::Error);
  CHECK_THROWS_AS(Vocab::from_words({"<unk>", "<pad>", "a"}), han::Error);
  CHECK_THROWS_AS(Vocab::from_words({"<pad>", "<unk>", "a", "b", "a"}), han::Error);
  CHECK_THROWS_AS(Vocab::from_words({"<pad>", "<unk>", "<pad>"}), han::Error);
  CHECK_THROWS_WITH(Vocab::from_words({"<pad>", "<unk>", "a", "a"}),
                    Catch::Contains("duplicate") && Catch::Contains("\"a\""));
  CHECK(Vocab::from_words({"<pad>", "<unk>"}).size() == 2);
}

namespace {

// A vocabulary's stored arrays in memory, as a model file holds them (4-byte elements).
struct StoredArrays {
  std::vector<std::uint32_t> text, offsets;
  std::vector<std::int32_t> slots;
  explicit StoredArrays(const Vocab& v) : offsets(v.offsets()), slots(v.slots()) {
    const std::string joined = v.joined();
    text.assign((joined.size() + 3) / 4, 0);
    std::memcpy(text.data(), joined.data(), joined.size());
  }
  Vocab::Stored views() const {
    const auto view = [](const void* p, std::size_t n) {
      return han::TensorView(static_cast<const float*>(p), 1, static_cast<han::Index>(n), nullptr);
    };
    return {view(text.data(), text.size()), view(offsets.data(), offsets.size()), view(slots.data(), slots.size())};
  }
};

}  // namespace

TEST_CASE("vocab: a stored vocabulary is looked up in place, and a hand-made one out of range is an error", "[vocab]") {
  const Vocab v = Vocab::from_words({"<pad>", "<unk>", "film", "caf\xc3\xa9", "a", "plot"});
  StoredArrays a(v);
  const Vocab w = Vocab::in_place(a.views(), "m.han");
  CHECK(w.words() == v.words());
  for (std::int32_t i = 0; i < 6; ++i) CHECK(w.id(v.word(i)) == i);
  CHECK(w.id("films") == Vocab::kUnk);
  CHECK(w.id("") == Vocab::kUnk);
  CHECK(w.origin() == "m.han");
  const auto refused = [](const StoredArrays& bad, auto&& use) {
    CHECK_THROWS_WITH(use(bad), Catch::Contains("m.han: model file is corrupted (its vocabulary)"));
  };
  StoredArrays b = a;
  b.offsets[3] = 0xFFFFFFFFu;  // wraps around in 32 bits
  refused(b, [](const StoredArrays& x) { return std::string(Vocab::in_place(x.views(), "m.han").word(2)); });
  b = a;
  b.offsets[2] = b.offsets[3] + 1;  // a word that ends before it starts
  refused(b, [](const StoredArrays& x) { return std::string(Vocab::in_place(x.views(), "m.han").word(2)); });
  b = a;
  b.offsets.back() = 4 * static_cast<std::uint32_t>(b.text.size()) + 1;  // past the text
  refused(b, [](const StoredArrays& x) { return std::string(Vocab::in_place(x.views(), "m.han").word(5)); });
  b = a;
  b.slots.pop_back();  // not a power of two
  refused(b, [](const StoredArrays& x) { return Vocab::in_place(x.views(), "m.han").size(); });
  b = a;
  for (std::int32_t& s : b.slots) s = s < 0 ? 7 : s;  // an id past the vocabulary
  refused(b, [](const StoredArrays& x) { return Vocab::in_place(x.views(), "m.han").id("zzz"); });
  b = a;
  for (std::int32_t& s : b.slots) s = 2;  // a full table: the lookup ends
  refused(b, [](const StoredArrays& x) { return Vocab::in_place(x.views(), "m.han").id("zzz"); });
}
