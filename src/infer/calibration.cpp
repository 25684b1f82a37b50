#include "han/infer/calibration.h"

#include <fmt/format.h>

#include "han/core/error.h"
#include "han/core/json_text.h"
#include "han/infer/calibration_error.h"
#include "han/infer/temperature.h"

namespace han {

nlohmann::json CalibrationScores::to_json() const {
  return {{"temperature", temperature},
          {"ece_before", finite_or_null(ece_before)},
          {"ece_after", finite_or_null(ece_after)},
          {"nll_before", finite_or_null(nll_before)},
          {"nll_after", finite_or_null(nll_after)}};
}

std::vector<std::vector<std::int32_t>> gold_label_sets(Task task, const Documents& docs) {
  HAN_ASSERT(task != Task::regression);
  std::vector<std::vector<std::int32_t>> gold;
  gold.reserve(docs.size());
  for (const DocumentView d : docs)
    gold.push_back(task == Task::single ? std::vector<std::int32_t>{d.label}
                                        : std::vector<std::int32_t>(d.label_set.begin(), d.label_set.end()));
  return gold;
}

double answers_ece(Task task, const Matrix& probabilities, const LabelSets& gold) {
  if (task == Task::multilabel) return multilabel_ece(probabilities, gold);
  std::vector<std::int32_t> labels;
  for (const auto& g : gold) labels.push_back(g.front());
  return single_label_ece(probabilities, labels);
}

CalibrationScores calibration_scores(const OutputHead& head, const Matrix& logits, const LabelSets& gold) {
  OutputHead untempered = head;
  untempered.temperature = 1.0;
  untempered.answers_logits = false;
  OutputHead tempered = untempered;
  tempered.temperature = head.temperature;
  CalibrationScores s;
  s.temperature = head.temperature;
  s.ece_before = answers_ece(head.task, head_answers(untempered, logits), gold);
  s.ece_after = answers_ece(head.task, head_answers(tempered, logits), gold);
  s.nll_before = tempered_nll(head.task, logits, gold, 1.0);
  s.nll_after = tempered_nll(head.task, logits, gold, head.temperature);
  return s;
}

TemperatureChoice choose_temperature(Task task, const Matrix& logits, const LabelSets& gold) {
  TemperatureChoice c;
  c.fitted = fit_temperature(task, logits, gold);
  OutputHead head = initial_head(task, static_cast<std::size_t>(logits.rows()));
  head.temperature = c.fitted;
  const CalibrationScores fit = calibration_scores(head, logits, gold);
  if (c.fitted < kMinTemperature * 1.01 || c.fitted > kMaxTemperature / 1.01)
    c.why_one = fmt::format("the fit reached its search bound (T {:.4f}, NLL {:.4f} -> {:.4f}{})", c.fitted,
                            fit.nll_before, fit.nll_after, fit.nll_after < 1e-3 ? ": dev is separated without error" : "");
  else if (fit.nll_after > fit.nll_before * (1 - kMinNllGain))
    c.why_one = fmt::format("the fit (T {:.4f}) lowers NLL by less than {:.0f} % ({:.4f} -> {:.4f})", c.fitted,
                            100 * kMinNllGain, fit.nll_before, fit.nll_after);
  else if (fit.ece_after > fit.ece_before)
    c.why_one = fmt::format("the fit (T {:.4f}) raises ECE {:.4f} -> {:.4f}", c.fitted, fit.ece_before, fit.ece_after);
  else
    c.temperature = c.fitted;
  return c;
}

double calibrated_nll(Task task, const Matrix& logits, const LabelSets& gold) {
  return tempered_nll(task, logits, gold, choose_temperature(task, logits, gold).temperature);
}

}  // namespace han
