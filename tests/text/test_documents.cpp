// The flat document store: what goes in comes out, ids are 16-bit exactly when the
// vocabulary allows, and memory follows the tokens.
#include <catch2/catch.hpp>

#include "han/text/documents.h"
#include "support/documents.h"

using namespace han;

namespace {

std::vector<Document> sample() {
  std::vector<Document> docs(3);
  docs[0].label = 1;
  docs[0].weight = 2.5f;
  docs[0].sentences = {{2, 3, 4}, {65535}};  // 65535: the largest 16-bit id
  docs[1].label_set = {0, 2};
  docs[1].target = 4.5f;
  docs[1].sentences = {{5}};
  return docs;  // docs[2] is empty
}

void check_same(const Documents& list, const std::vector<Document>& docs) {
  REQUIRE(list.size() == docs.size());
  std::int64_t tokens = 0;
  for (std::size_t i = 0; i < docs.size(); ++i) {
    const DocumentView v = list[i];
    CHECK(v.label == docs[i].label);
    CHECK(std::vector<std::int32_t>(v.label_set.begin(), v.label_set.end()) == docs[i].label_set);
    CHECK(v.target == docs[i].target);
    CHECK(v.weight == docs[i].weight);
    CHECK(v.sentences.ids() == docs[i].sentences);
    CHECK(v.tokens() == docs[i].tokens());
    tokens += docs[i].tokens();
  }
  CHECK(list.total_tokens() == tokens);
}

}  // namespace

TEST_CASE("documents: what is appended reads back, in 16 or 32 bits", "[documents]") {
  const std::vector<Document> docs = sample();
  Documents narrow(kMaxNarrowVocab);
  Documents wide(kMaxNarrowVocab + 1);
  for (const Document& d : docs) {
    narrow.push_back(d);
    wide.push_back(d);
  }
  CHECK(narrow.word_arrays().narrow);
  CHECK_FALSE(wide.word_arrays().narrow);
  check_same(narrow, docs);
  check_same(wide, docs);
  check_same(Documents(docs), docs);
  // Copies are deep: the copy's views point at its own arrays.
  Documents copy = narrow;
  narrow = Documents();
  check_same(copy, docs);
  std::vector<Document> big(1);
  big[0].sentences = {{70000}};
  Documents holds_big(70001);
  holds_big.push_back(big[0]);
  CHECK(holds_big[0].sentences[0][0] == 70000);
}

TEST_CASE("documents: truncate keeps the first ones whole", "[documents]") {
  const std::vector<Document> docs = test::random_documents(20, 3);
  Documents list(docs);
  list.truncate(7);
  check_same(list, std::vector<Document>(docs.begin(), docs.begin() + 7));
  list.push_back(docs[12]);
  CHECK(list[7].sentences.ids() == docs[12].sentences);
}

TEST_CASE("documents: caps shape the view the HAN reads and its shapes, whole sees every word", "[documents]") {
  std::vector<Document> docs(2);
  docs[0].sentences = {{2, 3, 4, 5}, {6}, {7, 8, 9}};
  docs[1].sentences = {{10, 11}};
  Documents list(docs);
  list.set_caps({2, 3});
  CHECK(list.caps() == Caps{2, 3});
  CHECK(list[0].sentences.ids() == std::vector<std::vector<std::int32_t>>{{2, 3, 4}, {6}});
  CHECK(list[0].whole.ids() == docs[0].sentences);
  CHECK(list[0].tokens() == 4);
  CHECK(list.shape(0).sentences == 2);
  CHECK(list.shape(0).longest == 3);
  CHECK(list.shape(0).tokens == 4);
  CHECK(list[1].sentences.ids() == docs[1].sentences);  // within the caps: as it is
  CHECK(list.total_tokens() == 10);  // every word is still held
  // Documents appended later are measured within the caps; a copy keeps them.
  list.push_back(docs[0]);
  CHECK(list.shape(2).tokens == 4);
  const Documents copy = list;
  CHECK(copy[2].sentences.ids() == list[2].sentences.ids());
  // Lifting the caps measures the whole documents again.
  list.set_caps({});
  CHECK(list[0].sentences.ids() == docs[0].sentences);
  CHECK(list.shape(0).tokens == 8);
  CHECK(list.shape(0).longest == 4);
}

TEST_CASE("documents: memory is about the ids' width per token plus 8 bytes per sentence", "[documents]") {
  std::vector<Document> docs(1000);
  for (Document& d : docs) d.sentences.assign(10, std::vector<std::int32_t>(20, 7));  // 200 tokens
  Documents narrow(1000), wide(100000);
  for (const Document& d : docs) {
    narrow.push_back(d);
    wide.push_back(d);
  }
  const double tokens = 200.0 * 1000;
  const double per_document = 4 + 4 + 4 + 8 + 8 + 16;  // label, target, weight, two starts, its shape
  CHECK(narrow.bytes() / tokens == Approx(2 + 8.0 / 20 + per_document / 200).epsilon(0.01));
  CHECK(wide.bytes() / tokens == Approx(4 + 8.0 / 20 + per_document / 200).epsilon(0.01));
}
