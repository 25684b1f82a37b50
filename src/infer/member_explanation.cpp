#include "han/infer/member_explanation.h"

#include <algorithm>
#include <cmath>

namespace han {

MemberExplanation explain_member(const LinearMemberParams& p, const BagFeatures& x, Index b, double share,
                                 const Matrix& han, const Matrix& member, Index label, double units) {
  MemberExplanation e;
  e.share = share;
  for (Index c = 0; c < han.rows(); ++c) {
    e.han_answers.push_back(han(c, b));
    e.member_answers.push_back(member(c, b));
  }
  const auto begin = static_cast<std::size_t>(x.start[static_cast<std::size_t>(b)]);
  const auto end = static_cast<std::size_t>(x.start[static_cast<std::size_t>(b) + 1]);
  for (std::size_t i = begin; i < end; ++i) e.features.push_back({x.ids[i], x.values[i]});
  explain_label(e, p, label, units);
  return e;
}

void explain_label(MemberExplanation& e, const LinearMemberParams& p, Index label, double units) {
  e.label = label;
  e.han = e.han_answers.at(static_cast<std::size_t>(label));
  e.member = e.member_answers.at(static_cast<std::size_t>(label));
  e.words.clear();
  for (const MemberContribution& f : e.features) {
    const double value = static_cast<double>(p.weights(f.word)(label)) * f.value * units;
    if (value != 0) e.words.push_back({f.word, static_cast<float>(value)});
  }
  // Largest magnitude first; equal ones by word id, so the order does not depend on the sort.
  const auto stronger = [](const MemberContribution& a, const MemberContribution& c) {
    const float ma = std::fabs(a.value), mc = std::fabs(c.value);
    return ma > mc || (ma == mc && a.word < c.word);
  };
  const std::size_t keep = std::min(e.words.size(), kMemberExplanationWords);
  std::partial_sort(e.words.begin(), e.words.begin() + static_cast<std::ptrdiff_t>(keep), e.words.end(), stronger);
  e.words.resize(keep);
}

}  // namespace han
