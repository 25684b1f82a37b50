#include "han/study/ablation_table.h"

#include <cstdio>

#include "han/core/select_metric.h"
#include "han/core/text_table.h"
#include "han/study/ablation_verdict.h"

namespace han {
namespace {

// Shown for a figure that is undefined (a spread or an interval from one seed).
constexpr const char* kUndefined = "n/a";
// Shown where a figure does not apply (renorm against itself).
constexpr const char* kNotApplicable = "—";

std::string format(const char* spec, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, spec, x);
  return buf;
}

std::string mean_and_sd(const SeedSummary& s) {
  return format("%.4f", s.mean) + " ± " + (s.sd ? format("%.4f", *s.sd) : kUndefined);
}

std::string difference_and_interval(const AblationVariant& v) {
  if (!v.vs_renorm) return kNotApplicable;
  const PairedComparison& c = *v.vs_renorm;
  const std::string ci = c.ci95 ? format("%+.4f", c.ci95->low) + ", " + format("%+.4f", c.ci95->high) : kUndefined;
  return format("%+.4f", c.mean_diff) + " [" + ci + "]";
}

std::string wins(const AblationVariant& v) {
  if (!v.vs_renorm) return kNotApplicable;
  return std::to_string(v.vs_renorm->wins) + "/" + std::to_string(v.seeds.size());
}

std::string word_and_sentence(const LevelFigures& f) { return format("%.3f", f.word) + " / " + format("%.3f", f.sentence); }

}  // namespace

std::vector<AblationColumn> ablation_columns(const std::string& evaluated_on, Task task) {
  const AblationMetrics metrics = AblationMetrics::of(task);
  const std::string main = metric_label(metrics.main);
  return {
      {"mask", [](const AblationVariant& v) { return std::string(to_string(v.mask)); }},
      {"batching", [](const AblationVariant& v) { return std::string(to_string(v.batching)); }},
      {main + " (" + evaluated_on + ")", [](const AblationVariant& v) { return mean_and_sd(v.score); }},
      {metric_label(metrics.second), [](const AblationVariant& v) { return mean_and_sd(v.second_score); }},
      {"Δ" + main + " vs renorm [95% CI]", difference_and_interval},
      {lower_is_better(metrics.main) ? "wins (lower)" : "wins", wins},
      {"pad mass w/s", [](const AblationVariant& v) { return word_and_sentence(v.pad_attention_mass); }},
      {"padding w/s", [](const AblationVariant& v) { return word_and_sentence(v.padding_fraction); }},
      {"invar.", [](const AblationVariant& v) { return format("%.2g", v.invariance_error); }},
      {"best", [](const AblationVariant& v) { return format("%.1f", v.epochs_to_best); }},
      {"s/epoch", [](const AblationVariant& v) { return format("%.1f", v.seconds_per_epoch); }},
  };
}

namespace {

// The header row, then a row of cells per variant.
std::vector<std::vector<std::string>> table_rows(const AblationResult& a) {
  const std::vector<AblationColumn> columns = ablation_columns(a.evaluated_on, a.config.model.task);
  std::vector<std::vector<std::string>> rows(1);
  for (const AblationColumn& c : columns) rows[0].push_back(c.header);
  for (const AblationVariant& v : a.variants) {
    rows.emplace_back();
    for (const AblationColumn& c : columns) rows.back().push_back(c.cell(v));
  }
  return rows;
}

std::string markdown_row(const std::vector<std::string>& cells) {
  std::string line = "|";
  for (const std::string& cell : cells) line += " " + cell + " |";
  return line + "\n";
}

}  // namespace

std::string ablation_table(const AblationResult& a) {
  std::string out = text_table(table_rows(a)) + "\n";
  for (const std::string& line : ablation_verdict(a)) out += "verdict: " + line + "\n";
  out += "\n";
  for (const std::string& line : ablation_legend(a.config)) out += "  " + line + "\n";
  return out;
}

std::string ablation_markdown(const AblationResult& a) {
  const std::vector<std::vector<std::string>> rows = table_rows(a);
  std::string out = markdown_row(rows[0]) + markdown_row(std::vector<std::string>(rows[0].size(), "---"));
  for (std::size_t i = 1; i < rows.size(); ++i) out += markdown_row(rows[i]);
  out += "\n**Verdict**\n\n";
  for (const std::string& line : ablation_verdict(a)) out += "- " + line + "\n";
  out += "\n**Legend**\n\n";
  for (const std::string& line : ablation_legend(a.config)) out += "- " + line + "\n";
  return out;
}

}  // namespace han
