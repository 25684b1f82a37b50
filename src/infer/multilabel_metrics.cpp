#include "han/infer/multilabel_metrics.h"

#include <algorithm>
#include <cstdio>

#include "han/core/error.h"

namespace han {

std::vector<Index> answered_labels(const Eigen::Ref<const Vector>& p, const std::vector<double>& thresholds) {
  HAN_ASSERT(static_cast<Index>(thresholds.size()) == p.size());
  std::vector<Index> out;
  for (Index c = 0; c < p.size(); ++c)
    if (p(c) >= thresholds[static_cast<std::size_t>(c)]) out.push_back(c);
  std::stable_sort(out.begin(), out.end(), [&](Index a, Index b) { return p(a) > p(b); });
  if (out.empty() && p.size() > 0) {
    Index best;
    p.maxCoeff(&best);
    out.push_back(best);
  }
  return out;
}

MultilabelMetrics compute_multilabel_metrics(const std::vector<std::vector<std::int32_t>>& gold, const Matrix& probs,
                                             const std::vector<double>& thresholds) {
  HAN_ASSERT(static_cast<Index>(gold.size()) == probs.cols());
  const std::size_t C = static_cast<std::size_t>(probs.rows());
  std::vector<std::int64_t> tp(C, 0), answered(C, 0), support(C, 0);
  MultilabelMetrics m;
  m.total = static_cast<std::int64_t>(gold.size());
  double exact = 0, wrong = 0, top_hits = 0, top_recall = 0;
  for (std::size_t i = 0; i < gold.size(); ++i) {
    const auto p = probs.col(static_cast<Index>(i));
    std::vector<bool> is_gold(C, false), is_answer(C, false);
    for (std::int32_t c : gold[i]) is_gold[c] = true;
    for (Index c : answered_labels(p, thresholds)) is_answer[c] = true;
    bool same = true;
    for (std::size_t c = 0; c < C; ++c) {
      tp[c] += is_gold[c] && is_answer[c];
      answered[c] += is_answer[c];
      support[c] += is_gold[c];
      same = same && is_gold[c] == is_answer[c];
      wrong += is_gold[c] != is_answer[c];
    }
    exact += same;
    Index top;
    p.maxCoeff(&top);
    top_hits += is_gold[static_cast<std::size_t>(top)];
    top_recall += is_gold[static_cast<std::size_t>(top)] ? 1.0 / static_cast<double>(gold[i].size()) : 0.0;
  }
  std::int64_t tp_all = 0, answered_all = 0, support_all = 0;
  double f1_sum = 0;
  for (std::size_t c = 0; c < C; ++c) {
    m.per_label.push_back(class_scores(tp[c], answered[c], support[c]));
    f1_sum += m.per_label.back().f1;
    tp_all += tp[c];
    answered_all += answered[c];
    support_all += support[c];
  }
  const ClassScores micro = class_scores(tp_all, answered_all, support_all);
  m.micro_precision = micro.precision;
  m.micro_recall = micro.recall;
  m.micro_f1 = micro.f1;
  const double n = static_cast<double>(std::max<std::int64_t>(m.total, 1));
  m.macro_f1 = C ? f1_sum / static_cast<double>(C) : 0.0;
  m.subset_accuracy = exact / n;
  m.hamming_loss = C ? wrong / (n * static_cast<double>(C)) : 0.0;
  m.precision_at_1 = top_hits / n;
  m.recall_at_1 = top_recall / n;
  return m;
}

nlohmann::json multilabel_metrics_to_json(const MultilabelMetrics& m, const std::vector<std::string>& labels) {
  return {{"documents", m.total},
          {"micro_precision", m.micro_precision},
          {"micro_recall", m.micro_recall},
          {"micro_f1", m.micro_f1},
          {"macro_f1", m.macro_f1},
          {"subset_accuracy", m.subset_accuracy},
          {"hamming_loss", m.hamming_loss},
          {"precision_at_1", m.precision_at_1},
          {"recall_at_1", m.recall_at_1},
          {"per_label", class_scores_json(m.per_label, labels)}};
}

std::string multilabel_metrics_to_text(const MultilabelMetrics& m, const std::vector<std::string>& labels) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "documents %lld  micro-F1 %.4f (P %.4f R %.4f)  macro-F1 %.4f  subset accuracy %.4f  "
                "Hamming loss %.4f  P@1 %.4f  R@1 %.4f\n\n",
                static_cast<long long>(m.total), m.micro_f1, m.micro_precision, m.micro_recall, m.macro_f1,
                m.subset_accuracy, m.hamming_loss, m.precision_at_1, m.recall_at_1);
  return buf + class_scores_text(m.per_label, labels, "label");
}

}  // namespace han
