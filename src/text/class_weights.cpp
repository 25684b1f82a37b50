#include "han/text/class_weights.h"

#include <algorithm>

#include <fmt/format.h>

#include "han/core/error.h"
#include "han/core/json_text.h"

namespace han {

std::vector<double> class_weights(const ClassWeights& setting, const std::vector<std::string>& labels,
                                  const Documents& train) {
  std::vector<double> w(labels.size(), 1.0);
  if (setting.mode == ClassWeights::Mode::balanced) {
    std::vector<double> count(labels.size(), 0.0);
    for (const DocumentView d : train)
      if (d.label >= 0) ++count[d.label];
    const double n = static_cast<double>(train.size()), k = static_cast<double>(labels.size());
    for (std::size_t c = 0; c < labels.size(); ++c) w[c] = count[c] > 0 ? n / (k * count[c]) : 1.0;
  } else if (setting.mode == ClassWeights::Mode::given) {
    for (const auto& [label, weight] : setting.given) {
      const auto it = std::find(labels.begin(), labels.end(), label);
      if (it == labels.end())
        throw Error("loss.class_weights: " + quote_excerpt(label) + " is not one of the " +
                    std::to_string(labels.size()) + " labels of data.train");
      w[static_cast<std::size_t>(it - labels.begin())] = weight;
    }
  }
  return w;
}

std::string describe_class_weights(const std::vector<std::string>& labels, const std::vector<double>& weights) {
  constexpr std::size_t kShown = 12;
  std::string out;
  for (std::size_t c = 0; c < labels.size() && c < kShown; ++c)
    out += (c ? ", " : "") + quote_excerpt(labels[c]) + " " + fmt::format("{:.3g}", weights[c]);
  if (labels.size() > kShown) out += fmt::format(", ... ({} more)", labels.size() - kShown);
  return out;
}

void apply_class_weights(const std::vector<double>& weights, Documents& docs) {
  for (std::size_t i = 0; i < docs.size(); ++i) {
    const DocumentView d = docs[i];
    if (d.label >= 0) docs.set_weight(i, static_cast<float>(d.weight * weights[d.label]));
  }
}

}  // namespace han
