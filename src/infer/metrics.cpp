#include "han/infer/metrics.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "han/core/error.h"

namespace han {

ClassScores class_scores(std::int64_t true_positives, std::int64_t answered, std::int64_t gold) {
  ClassScores s;
  s.support = gold;
  s.precision = answered ? static_cast<double>(true_positives) / static_cast<double>(answered) : 0.0;
  s.recall = gold ? static_cast<double>(true_positives) / static_cast<double>(gold) : 0.0;
  s.f1 = s.precision + s.recall > 0 ? 2 * s.precision * s.recall / (s.precision + s.recall) : 0.0;
  return s;
}

nlohmann::json class_scores_json(const std::vector<ClassScores>& scores, const std::vector<std::string>& labels) {
  nlohmann::json out = nlohmann::json::object();
  for (std::size_t c = 0; c < scores.size(); ++c) {
    const ClassScores& s = scores[c];
    out[labels[c]] = {{"precision", s.precision}, {"recall", s.recall}, {"f1", s.f1}, {"support", s.support}};
  }
  return out;
}

std::string class_scores_text(const std::vector<ClassScores>& scores, const std::vector<std::string>& labels,
                              const char* what) {
  std::ostringstream os;
  char buf[256];
  std::size_t width = 5;
  for (const auto& l : labels) width = std::max(width, l.size());
  const int w = static_cast<int>(width);
  std::snprintf(buf, sizeof buf, "%-*s  %9s  %9s  %9s  %9s\n", w, what, "precision", "recall", "f1", "support");
  os << buf;
  for (std::size_t c = 0; c < labels.size(); ++c) {
    const ClassScores& s = scores[c];
    std::snprintf(buf, sizeof buf, "%-*s  %9.4f  %9.4f  %9.4f  %9lld\n", w, labels[c].c_str(), s.precision, s.recall,
                  s.f1, static_cast<long long>(s.support));
    os << buf;
  }
  return os.str();
}

Metrics compute_metrics(const std::vector<std::int32_t>& gold,
                        const std::vector<std::int32_t>& predicted, std::size_t classes) {
  HAN_ASSERT(gold.size() == predicted.size());
  Metrics m;
  m.confusion.assign(classes, std::vector<std::int64_t>(classes, 0));
  std::int64_t correct = 0;
  for (std::size_t i = 0; i < gold.size(); ++i) {
    HAN_ASSERT(gold[i] >= 0 && static_cast<std::size_t>(gold[i]) < classes);
    HAN_ASSERT(predicted[i] >= 0 && static_cast<std::size_t>(predicted[i]) < classes);
    ++m.confusion[gold[i]][predicted[i]];
    correct += gold[i] == predicted[i];
  }
  m.total = static_cast<std::int64_t>(gold.size());
  m.accuracy = m.total ? static_cast<double>(correct) / static_cast<double>(m.total) : 0.0;
  double f1_sum = 0;
  for (std::size_t c = 0; c < classes; ++c) {
    std::int64_t tp = m.confusion[c][c], predicted_c = 0, gold_c = 0;
    for (std::size_t k = 0; k < classes; ++k) {
      predicted_c += m.confusion[k][c];
      gold_c += m.confusion[c][k];
    }
    const ClassScores s = class_scores(tp, predicted_c, gold_c);
    f1_sum += s.f1;
    m.per_class.push_back(s);
  }
  m.macro_f1 = classes ? f1_sum / static_cast<double>(classes) : 0.0;
  return m;
}

nlohmann::json metrics_to_json(const Metrics& m, const std::vector<std::string>& labels) {
  const nlohmann::json per_class = class_scores_json(m.per_class, labels);
  return {{"documents", m.total},
          {"accuracy", m.accuracy},
          {"macro_f1", m.macro_f1},
          {"per_class", per_class},
          {"confusion", {{"labels", labels}, {"matrix", m.confusion}}}};
}

std::string metrics_to_text(const Metrics& m, const std::vector<std::string>& labels) {
  std::ostringstream os;
  char buf[256];
  std::snprintf(buf, sizeof buf, "documents %lld  accuracy %.4f  macro-F1 %.4f\n\n",
                static_cast<long long>(m.total), m.accuracy, m.macro_f1);
  os << buf;
  os << class_scores_text(m.per_class, labels, "class");
  std::size_t width = 5;
  for (const auto& l : labels) width = std::max(width, l.size());
  const int w = static_cast<int>(width);
  // Confusion matrix: rows gold, columns predicted (by class number, listed above).
  os << "\nconfusion (rows: gold, columns: predicted)\n";
  std::snprintf(buf, sizeof buf, "%-*s", w + 5, "");
  os << buf;
  for (std::size_t c = 0; c < labels.size(); ++c) {
    std::snprintf(buf, sizeof buf, " %6zu", c);
    os << buf;
  }
  os << "\n";
  for (std::size_t g = 0; g < labels.size(); ++g) {
    std::snprintf(buf, sizeof buf, "%3zu  %-*s", g, w, labels[g].c_str());
    os << buf;
    for (std::size_t p = 0; p < labels.size(); ++p) {
      std::snprintf(buf, sizeof buf, " %6lld", static_cast<long long>(m.confusion[g][p]));
      os << buf;
    }
    os << "\n";
  }
  return os.str();
}

}  // namespace han
