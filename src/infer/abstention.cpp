#include "han/infer/abstention.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "han/core/error.h"
#include "han/core/json_text.h"
#include "han/infer/predictor.h"

namespace han {

nlohmann::json SelectiveScores::to_json() const {
  return {{"threshold", threshold},
          {"documents", documents},
          {"answered", answered},
          {"coverage", coverage},
          {"accuracy", finite_or_null(accuracy)}};
}

std::string SelectiveScores::to_text() const {
  return fmt::format("abstaining below {}: coverage {:.4f} ({} of {} answered), accuracy on the answered {}\n",
                     threshold, coverage, answered, documents,
                     std::isnan(accuracy) ? std::string("n/a") : fmt::format("{:.4f}", accuracy));
}

SelectiveScores selective_scores(const Matrix& probs, const std::vector<std::vector<std::int32_t>>& gold,
                                 double threshold) {
  HAN_ASSERT(static_cast<Index>(gold.size()) == probs.cols());
  const std::vector<std::int32_t> top = argmax_columns(probs);
  SelectiveScores s;
  s.threshold = threshold;
  s.documents = static_cast<std::int64_t>(gold.size());
  std::int64_t right = 0;
  for (std::size_t i = 0; i < gold.size(); ++i) {
    if (abstains(probs(top[i], static_cast<Index>(i)), threshold)) continue;
    ++s.answered;
    right += gold[i].size() == 1 && top[i] == gold[i].front() ? 1 : 0;
  }
  s.coverage = s.documents ? static_cast<double>(s.answered) / static_cast<double>(s.documents) : 0.0;
  s.accuracy = s.answered ? static_cast<double>(right) / static_cast<double>(s.answered)
                          : std::numeric_limits<double>::quiet_NaN();
  return s;
}

}  // namespace han
