#pragma once
// Single-label answers that may abstain: with a threshold P (han predict/eval --threshold),
// a document whose top probability is below P gets no label (predict answers the abstain
// label). Scored by coverage (the share answered) and the accuracy on those answered.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "han/core/types.h"

namespace han {

// The label han predict answers for an abstention unless --abstain-label names another.
inline constexpr const char* kDefaultAbstainLabel = "__none__";

inline bool abstains(double top_probability, double threshold) { return top_probability < threshold; }

struct SelectiveScores {
  double threshold = 0;
  std::int64_t documents = 0, answered = 0;
  double coverage = 0;  // answered / documents
  double accuracy = 0;  // right / answered; NaN when none is answered
  nlohmann::json to_json() const;
  std::string to_text() const;
};

// probs (C, n); gold[i]: document i's label, alone in its set (infer/calibration.h's gold_label_sets).
SelectiveScores selective_scores(const Matrix& probs, const std::vector<std::vector<std::int32_t>>& gold,
                                 double threshold);

}  // namespace han
