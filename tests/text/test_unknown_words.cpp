// Documents keep the words their vocabulary lacks, one per <unk> token in reading order,
// for the linear member's character n-grams: from encoded text and from the training
// split's provisional ids, through copies and truncation, and not when not asked to.
#include <catch2/catch.hpp>

#include "han/core/error.h"
#include "han/text/encoding.h"
#include "han/text/training_text.h"
#include "han/text/vocab.h"

using namespace han;

namespace {

std::vector<std::string> listed(const UnknownWordList& list) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < list.size(); ++i) out.emplace_back(list[i]);
  return out;
}

const Vocab& words() {
  static const Vocab v = Vocab::from_words({"<pad>", "<unk>", "the", "film"});
  return v;
}

}  // namespace

TEST_CASE("unknown words: kept per document in reading order, each distinct word stored once", "[unknown_words]") {
  const TokenizedText a = {{"the", "zyx", "film"}, {"qq", "zyx"}};
  const TokenizedText b = {{"film"}};
  Documents docs(words().size());
  docs.keep_unknown_words();
  docs.push_back(encode_words(a, words(), 0, true));
  docs.push_back(encode_words(b, words(), 1, true));
  REQUIRE(docs.unknown_words() != nullptr);
  CHECK(listed(docs[0].unknown) == std::vector<std::string>{"zyx", "qq", "zyx"});
  CHECK(docs[1].unknown.empty());
  CHECK(docs.unknown_words()->distinct().size() == 2);

  const Documents copy = docs;  // a copy holds its own
  CHECK(listed(copy[0].unknown) == listed(docs[0].unknown));
  docs.truncate(1);
  CHECK(docs.unknown_words()->documents() == 1);

  Documents plain(words().size());  // not asked: none kept, and the word ids are the same
  plain.push_back(encode_words(a, words()));
  CHECK(plain.unknown_words() == nullptr);
  CHECK(plain[0].unknown.empty());
  CHECK(plain[0].whole.ids() == copy[0].whole.ids());
}

TEST_CASE("unknown words: the training split keeps those outside its vocabulary", "[unknown_words]") {
  TrainingText text;
  text.words = {"the", "zyx", "film"};
  text.ids = {0, 1, 2, 1};
  text.sentence_starts = {0, 3, 4};
  text.document_starts = {0, 1, 2};
  text.answers.labels = {0, 1};
  text.answers.targets = {0, 0};
  text.answers.weights = {1, 1};
  text.answers.label_set_starts = {0, 0, 0};
  const std::vector<std::int32_t> to_vocab = {2, Vocab::kUnk, 3};
  const Documents docs = to_documents(std::move(text), Caps{}, to_vocab, words().size(), true);
  CHECK(listed(docs[0].unknown) == std::vector<std::string>{"zyx"});
  CHECK(listed(docs[1].unknown) == std::vector<std::string>{"zyx"});
}

TEST_CASE("unknown words: arrays that do not fit together are refused", "[unknown_words]") {
  CHECK(UnknownWords::from_arrays({0, 1}, {0}, {"a"}, "x").documents() == 1);
  CHECK_THROWS_AS(UnknownWords::from_arrays({0, 2}, {0}, {"a"}, "x"), Error);     // starts past the entries
  CHECK_THROWS_AS(UnknownWords::from_arrays({0, 1}, {1}, {"a"}, "x"), Error);     // an id past the words
  CHECK_THROWS_AS(UnknownWords::from_arrays({0, 1, 0}, {0}, {"a"}, "x"), Error);  // backwards
}
