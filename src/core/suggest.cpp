#include "han/core/suggest.h"

#include <algorithm>
#include <string_view>
#include <vector>

namespace han {
namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

bool is_subsequence(std::string_view small, std::string_view big) {
  std::size_t i = 0;
  for (char c : big) {
    if (i < small.size() && small[i] == c) ++i;
  }
  return i == small.size();
}

}  // namespace

// `candidates`: (text compared with `typed`, text suggested), best-preferred first.
// The closest candidate by edit distance; failing that, every candidate that contains
// `typed` as a subsequence ("hiden" -> "word_hidden" or "sentence_hidden").
std::vector<std::string> closest_names(const std::string& typed,
                                       const std::vector<std::pair<std::string, std::string>>& candidates) {
  std::size_t best = std::string::npos;
  std::string best_text;
  for (const auto& [cmp, shown] : candidates) {
    const std::size_t d = edit_distance(typed, cmp);
    if (d < best) {
      best = d;
      best_text = shown;
    }
  }
  const std::size_t limit = std::max<std::size_t>(2, typed.size() / 3);
  if (!best_text.empty() && best <= limit) return {best_text};

  std::vector<std::string> contained;
  if (typed.size() >= 3) {
    for (const auto& [cmp, shown] : candidates) {
      if (is_subsequence(typed, cmp) &&
          std::find(contained.begin(), contained.end(), shown) == contained.end()) {
        contained.push_back(shown);
      }
    }
  }
  if (contained.size() > 3) return {};
  return contained;
}

std::string suggestion(const std::string& typed,
                       const std::vector<std::pair<std::string, std::string>>& candidates) {
  const std::vector<std::string> names = closest_names(typed, candidates);
  if (names.empty()) return "";
  std::string out = " (did you mean ";
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += " or ";
    out += "\"" + names[i] + "\"";
  }
  return out + "?)";
}

}  // namespace han
