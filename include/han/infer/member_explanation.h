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
  Index label = 0;   // the row explained: the blended answer's most probable label (regression: 0)
  double han = 0;    // the HAN part's own answer for that label (its members' mean, before any temperature)
  double member = 0;  // the member's own answer for it
  std::vector<MemberContribution> words;
  bool present() const { return share > 0; }
};

// The explanation of document b of the features `x` for `label`. `units` scales the
// contributions (a regression head's target sd; 1 otherwise).
MemberExplanation explain_member(const LinearMemberParams& p, const BagFeatures& x, Index b, Index label,
                                 double units);

}  // namespace han
