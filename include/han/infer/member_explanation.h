#pragma once
// The linear member's side of one answer (nn/linear_member.h). A blended model answers
// (1 - share) x the HAN's answer + share x the member's; the attention weights show only the
// HAN's part, so an explanation also says how the two parts answered and which words moved
// the member: each word's contribution is its weight times its TF-IDF feature, in the
// member's logit for the explained label (regression: in target units).
#include <cstdint>
#include <vector>

#include "han/core/types.h"
#include "han/nn/layers/bag.h"
#include "han/nn/linear_member.h"

namespace han {

// The words an explanation lists, the largest contributions (either sign) first.
constexpr std::size_t kMemberExplanationWords = 10;

struct MemberContribution {
  std::int32_t word = 0;  // vocabulary id
  float value = 0;        // weight x feature: > 0 for the label, < 0 against it
};

struct MemberExplanation {
  double share = 0;  // the member's weight in the blend; 0: the model has no member
  // Each part's own answers, per label (its members' mean for the HAN, before any
  // temperature), and the document's features: what explain_label reads.
  std::vector<double> han_answers, member_answers;
  std::vector<MemberContribution> features;  // every word of the document with its feature value
  // The label explained (regression: 0), each part's answer for it and the member's words.
  Index label = 0;
  double han = 0, member = 0;
  std::vector<MemberContribution> words;
  bool present() const { return share > 0; }
};

// Document b's side: its share, the parts' answers (columns b of `han` and `member`) and
// its features, explained for `label` (explain_label).
MemberExplanation explain_member(const LinearMemberParams& p, const BagFeatures& x, Index b, double share,
                                 const Matrix& han, const Matrix& member, Index label, double units);
// Sets e's label, the parts' answers for it and the words with the largest contributions.
// `units` scales the contributions (a regression head's target sd; 1 otherwise). The
// caller that decides which label a row answers (a multi-label model's thresholds) calls it
// again for that label.
void explain_label(MemberExplanation& e, const LinearMemberParams& p, Index label, double units);

}  // namespace han
