#pragma once
// loss.class_weights: how much each class's training documents count in the loss
// (single-label task), multiplied into each document's own weight.
#include <string>
#include <vector>

#include "han/core/config.h"
#include "han/text/documents.h"

namespace han {

// One weight per label: 1 for none; balanced: n / (classes x count of the class), as
// scikit-learn's class_weight="balanced"; given: the config's weight, 1 for a label it
// does not name. A given label that is not among `labels` is an error naming the key.
std::vector<double> class_weights(const ClassWeights& setting, const std::vector<std::string>& labels,
                                  const Documents& train);

// Multiplies each document's weight by its class's weight.
// "neg" 0.833, "pos" 1.25, ...: the weights for the log (the first 12 labels).
std::string describe_class_weights(const std::vector<std::string>& labels, const std::vector<double>& weights);
void apply_class_weights(const std::vector<double>& weights, Documents& docs);

}  // namespace han
