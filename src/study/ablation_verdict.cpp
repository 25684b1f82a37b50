#include "han/study/ablation_verdict.h"

#include <cstdio>

#include "han/core/select_metric.h"

namespace han {
namespace {

std::string signed4(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.4f", x);
  return buf;
}

std::string variant_pair(const AblationVariant& v) {
  return std::string("with ") + to_string(v.batching) + " batching, " + to_string(v.mask) + " ";
}

// Δ and its interval as the table shows them: "Δacc -0.0123 [-0.0200, -0.0046]".
std::string difference(const PairedComparison& c, const std::string& metric) {
  std::string s = "Δ" + metric + " " + signed4(c.mean_diff);
  if (c.ci95) s += " [" + signed4(c.ci95->low) + ", " + signed4(c.ci95->high) + "]";
  return s;
}

std::string verdict_on(const AblationVariant& v, SelectMetric main) {
  const PairedComparison& c = *v.vs_renorm;
  const std::string metric = metric_label(main);
  const int n = static_cast<int>(v.seeds.size());
  const std::string seeds = std::to_string(n);
  if (c.ties == n)
    return variant_pair(v) + "and renorm score the same " + metric + " on every seed (" + seeds + " of " + seeds +
           " tied)";
  if (!c.ci95)
    return variant_pair(v) + "vs renorm: " + difference(c, metric) +
           " from one seed, which cannot tell them apart; run 3 or more seeds (-n)";
  const bool above = c.ci95->low > 0, below = c.ci95->high < 0;
  if (!above && !below)
    return variant_pair(v) + "and renorm do not differ measurably: " + difference(c, metric) +
           ", the 95 % interval holds 0";
  const bool better = lower_is_better(main) ? below : above;
  return variant_pair(v) + "does " + (better ? "better" : "worse") + " than renorm: " + difference(c, metric) +
         ", " + std::to_string(c.wins) + " of " + seeds + " seeds won";
}

}  // namespace

std::vector<std::string> ablation_verdict(const AblationResult& a) {
  const SelectMetric main = AblationMetrics::of(a.config.model.task).main;
  std::vector<std::string> out;
  for (const AblationVariant& v : a.variants)
    if (v.vs_renorm) out.push_back(verdict_on(v, main));
  if (out.empty())
    out.push_back("renorm is not among the variants (--masks), and each variant is compared with renorm: "
                  "nothing to compare");
  if (a.config.model.linear_member)
    out.push_back("the linear member is blended into every variant (--with-member): it is the same in every "
                  "variant, so it narrows their differences");
  return out;
}

std::vector<std::string> ablation_legend(const Config& cfg) {
  const Task task = cfg.model.task;
  const bool calibrates = cfg.trainer.calibrate;
  const std::string main = metric_label(AblationMetrics::of(task).main);
  std::vector<std::string> legend = {
      "Δ: the paired difference, variant − renorm with the same batching and seed, and its 95 % t interval over "
      "seeds; wins: the seeds where the variant beats renorm",
      "pad mass w/s: the mean attention weight on padded positions per real sentence (word level) and per "
      "document (sentence level), on dev",
      "padding w/s: the fraction of padded slots in the training batches",
      std::string("invar.: the invariance error, the largest change of a dev document's ") +
          (task == Task::regression ? "number" : "probabilities") +
          " alone vs. in a padded batch with the longest dev documents",
      "best: the epochs to the best dev " + main + " (mean over seeds); s/epoch: seconds per training epoch",
      "n/a: undefined with one seed; —: does not apply",
  };
  if (task == Task::multilabel && !calibrates)
    legend.push_back("every label is answered at the threshold 0.5 (trainer.calibrate is false)");
  if (task == Task::multilabel && calibrates)
    legend.push_back("each variant's label thresholds and temperature are fitted on dev as han train fits a model's "
                     "(trainer.calibrate); its dev scores are measured with them, its test scores are not tuned on test");
  return legend;
}

}  // namespace han
