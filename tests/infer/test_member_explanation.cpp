// explain_member: the linear member's side of an answer, each word's weight times its
// feature, the largest first.
#include <catch2/catch.hpp>

#include <cmath>

#include "han/infer/member_explanation.h"
#include "support/documents.h"

using namespace han;

namespace {

// Two documents over a 14-word vocabulary: the first has 12 distinct words, the second 2.
Documents two_documents() {
  std::vector<std::int32_t> first;
  for (std::int32_t id = 2; id < 14; ++id) first.push_back(id);
  first.push_back(5);  // a word twice: one feature
  return Documents({test::labelled_doc(0, {first}), test::labelled_doc(1, {{3, 7}})});
}

LinearMemberParams member_params(const Documents& docs) {
  LinearMemberParams p = linear_member_init(docs, 14, 2);
  for (Index v = 0; v < 14; ++v) {
    p.W(0, v) = static_cast<Scalar>(std::sin(0.7 * static_cast<double>(v)));
    p.W(1, v) = -p.W(0, v);
  }
  p.b << 0.3f, -0.3f;
  return p;
}

}  // namespace

TEST_CASE("explain_member: contributions of a short document sum to the member's logit", "[member_explanation]") {
  const Documents docs = two_documents();
  const LinearMemberParams p = member_params(docs);
  const BagFeatures x = linear_member_features(p, docs, {0, 1});
  const Matrix logits = linear_member_logits(p, x);
  for (Index label = 0; label < 2; ++label) {
    const MemberExplanation e = explain_member(p, x, 1, 0.5, logits, logits, label, 1.0);
    REQUIRE(e.words.size() == 2);
    CHECK(e.label == label);
    CHECK(e.words[0].value + e.words[1].value + p.b(label, 0) == Approx(logits(label, 1)).epsilon(1e-5));
    CHECK(std::fabs(e.words[0].value) >= std::fabs(e.words[1].value));
  }
}

TEST_CASE("explain_member: keeps the ten largest contributions of either sign, in target units", "[member_explanation]") {
  const Documents docs = two_documents();
  const LinearMemberParams p = member_params(docs);
  const BagFeatures x = linear_member_features(p, docs, {0, 1});
  const Matrix logits = linear_member_logits(p, x);
  const MemberExplanation e = explain_member(p, x, 0, 0.5, logits, logits, 0, 1.0);
  REQUIRE(e.words.size() == kMemberExplanationWords);  // 12 distinct words, 10 kept
  bool positive = false, negative = false;
  for (std::size_t i = 0; i < e.words.size(); ++i) {
    if (i > 0) CHECK(std::fabs(e.words[i - 1].value) >= std::fabs(e.words[i].value));
    positive = positive || e.words[i].value > 0;
    negative = negative || e.words[i].value < 0;
  }
  CHECK(positive);
  CHECK(negative);
  // The two left out weigh least.
  float smallest_kept = std::fabs(e.words.back().value), largest_left = 0;
  for (Index i = x.start[0]; i < x.start[1]; ++i) {
    bool kept = false;
    for (const MemberContribution& c : e.words) kept = kept || c.word == x.ids[static_cast<std::size_t>(i)];
    if (!kept)
      largest_left = std::max(largest_left, std::fabs(p.W(0, x.ids[static_cast<std::size_t>(i)]) * x.values[static_cast<std::size_t>(i)]));
  }
  CHECK(largest_left <= smallest_kept);
  // A regression member's contributions are in target units: scaled by the target's sd.
  MemberExplanation scaled = e;
  explain_label(scaled, p, 0, 2.5);
  for (std::size_t i = 0; i < e.words.size(); ++i) {
    CHECK(scaled.words[i].word == e.words[i].word);
    CHECK(scaled.words[i].value == Approx(2.5 * e.words[i].value));
  }
  // Explained again for the other label: that label's answers and weights.
  MemberExplanation other = e;
  explain_label(other, p, 1, 1.0);
  CHECK(other.label == 1);
  CHECK(other.member == Approx(logits(1, 0)));
  REQUIRE(other.words.size() == e.words.size());
  for (std::size_t i = 0; i < e.words.size(); ++i) CHECK(other.words[i].value == Approx(-e.words[i].value));  // W(1) = -W(0)
}

TEST_CASE("explain_member: a document without words has no words to show, and zero weights are left out",
          "[member_explanation]") {
  const Documents docs({test::labelled_doc(0, {{2, 3}}), test::labelled_doc(1, {})});
  LinearMemberParams p = linear_member_init(docs, 4, 2);
  p.W(0, 2) = 1.5f;  // word 3 keeps its zero weight
  const BagFeatures x = linear_member_features(p, docs, {0, 1});
  const Matrix logits = linear_member_logits(p, x);
  const MemberExplanation empty = explain_member(p, x, 1, 0.5, logits, logits, 0, 1.0);
  CHECK(empty.present());
  CHECK(empty.words.empty());
  const MemberExplanation one = explain_member(p, x, 0, 0.5, logits, logits, 0, 1.0);
  REQUIRE(one.words.size() == 1);
  CHECK(one.words[0].word == 2);
}
