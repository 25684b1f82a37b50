#pragma once
// "Did you mean ...?" for a mistyped name (config keys, enum values, command verbs).
#include <string>
#include <utility>
#include <vector>

namespace han {

// `candidates`: (text compared with `typed`, text suggested), best-preferred first.
// The closest candidate by edit distance; failing that, up to three candidates that
// contain `typed` as a subsequence; none when nothing is close.
std::vector<std::string> closest_names(const std::string& typed,
                                       const std::vector<std::pair<std::string, std::string>>& candidates);

// closest_names as a sentence's end: " (did you mean \"x\"?)", or "".
std::string suggestion(const std::string& typed,
                       const std::vector<std::pair<std::string, std::string>>& candidates);

}  // namespace han
