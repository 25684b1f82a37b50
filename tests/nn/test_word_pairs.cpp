// The linear member's word pairs: which are kept, how they are found and named, and what
// a damaged pairs tensor is told apart by.
#include <catch2/catch.hpp>

#include "han/nn/linear_member.h"
#include "han/nn/word_pairs.h"
#include "support/documents.h"

using namespace han;

namespace {
const auto pairs_doc = han::test::labelled_doc;
}

TEST_CASE("word pairs: adjacent in a sentence, held by two documents, sorted, the most held kept first",
          "[linear_member][word_pairs]") {
  // (2, 3) in three documents, (4, 5) in two, (3, 4) in one, (5, 2) only across a sentence end.
  const Documents train(std::vector<Document>{pairs_doc(0, {{2, 3, 4}, {5}}), pairs_doc(1, {{2, 3}, {4, 5}}),
                                              pairs_doc(0, {{4, 5, 2, 3}, {2, 3}}), pairs_doc(1, {{5}, {2}})});
  const Matrix pairs = count_word_pairs(train, 10);
  REQUIRE(pairs.cols() == 2);
  CHECK(pairs.col(0) == (Matrix(2, 1) << 2, 3).finished());
  CHECK(pairs.col(1) == (Matrix(2, 1) << 4, 5).finished());
  CHECK(find_word_pair(pairs, 2, 3) == 0);
  CHECK(find_word_pair(pairs, 4, 5) == 1);
  CHECK(find_word_pair(pairs, 3, 4) == -1);
  CHECK(find_word_pair(pairs, 5, 2) == -1);
  CHECK(find_word_pair(pairs, 3, 2) == -1);
  CHECK(word_pairs_problem(pairs, 6).empty());

  const Matrix one = count_word_pairs(train, 1);  // the cap keeps the most widely held
  REQUIRE(one.cols() == 1);
  CHECK(one.col(0) == pairs.col(0));
  CHECK(linear_member_pairs(train, 2, 1).cols() == 0);  // model.linear_ngrams = 1: words alone
}

TEST_CASE("word pairs as features: after the words, with their idf, named by their two words",
          "[linear_member][word_pairs]") {
  const Documents train(std::vector<Document>{pairs_doc(0, {{2, 3, 4}}), pairs_doc(1, {{2, 3}, {4}})});
  const LinearMemberParams p = linear_member_init(train, 5, 2, linear_member_pairs(train, 2, 2));
  REQUIRE(p.pairs.cols() == 1);
  REQUIRE(p.W.cols() == 6);
  REQUIRE(p.words() == 5);
  CHECK(p.idf(5, 0) == Approx(1.0));  // in both documents
  const BagFeatures x = linear_member_features(p, train, {1});
  CHECK(x.ids == std::vector<std::int32_t>{2, 3, 4, 5});
  const Vocab words = Vocab::from_words({"<pad>", "<unk>", "not", "good", "film"});
  CHECK(LinearFeatureNamer(p, words)(3) == "good");
  CHECK(LinearFeatureNamer(p, words)(5) == "not good");
}

TEST_CASE("a damaged word pairs tensor is told apart", "[linear_member][word_pairs]") {
  Matrix pairs(2, 2);
  pairs << 2, 2, 3, 4;
  CHECK(word_pairs_problem(pairs, 5).empty());
  CHECK(word_pairs_problem(pairs, 4) == "word pair 1 holds an id that is not a word of the vocabulary");
  Matrix unsorted = pairs;
  unsorted.col(0).swap(unsorted.col(1));
  CHECK(word_pairs_problem(unsorted, 5) == "the word pairs are not sorted");
  Matrix fraction = pairs;
  fraction(0, 0) = 2.5;
  CHECK_FALSE(word_pairs_problem(fraction, 5).empty());
  CHECK_FALSE(word_pairs_problem(Matrix(3, 1), 5).empty());
}
