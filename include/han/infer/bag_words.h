#pragma once
// What a model's bag-of-words weights have learned: the words they weigh most toward each
// answer. The weights are the linear member's (model.linear_member) when the model has
// one, else those of the bag term (model.bag = words) averaged over an ensemble's
// members. A word's lean toward a
// label is its weight for that label minus its mean weight over all labels (a word every
// label weighs alike decides nothing); a regression model has one output, so its words
// lean toward "higher" or "lower".
#include <string>
#include <utility>
#include <vector>

#include "han/infer/classifier.h"

namespace han {

struct BagLeaning {
  std::string answer;                                // a label, or "higher" / "lower"
  std::vector<std::pair<std::string, double>> words;  // strongest first
};

// Empty without model.bag or a linear member. PAD and UNK are left out.
std::vector<BagLeaning> bag_top_words(const Classifier& c, std::size_t per_answer);

}  // namespace han
