#pragma once
// "Did you mean ...?" for a mistyped name (config keys, enum values, command verbs).
#include <string>
#include <utility>
#include <vector>

namespace han {

// `candidates`: (text compared with `typed`, text suggested), best-preferred first.
// Returns " (did you mean \"x\"?)" for the closest candidate by edit distance; failing
// that, every candidate that contains `typed` as a subsequence; "" when nothing is close.
std::string suggestion(const std::string& typed,
                       const std::vector<std::pair<std::string, std::string>>& candidates);

}  // namespace han
