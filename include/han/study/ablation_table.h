#pragma once
// The columns of the ablation table: one list, so the table han ablate prints, the one
// in report.html and the one in report.md show the same figures, formatted the same way.
#include <functional>
#include <string>
#include <vector>

#include "han/study/ablation_results.h"

namespace han {

struct AblationColumn {
  std::string header;
  std::function<std::string(const AblationVariant&)> cell;  // the value, formatted (plain UTF-8 text)
};

// In display order, for the task's scores (study/ablation_metrics.h); the main score's
// header names the split it was measured on, the wins' says "lower" when lower is better.
std::vector<AblationColumn> ablation_columns(const std::string& evaluated_on, Task task = Task::single);

// What han ablate prints on stdout: the table (a header line and a line per variant,
// columns aligned), its verdict lines and its legend (study/ablation_verdict.h).
std::string ablation_table(const AblationResult& ablation);

// The same in Markdown (report.md): the table, then the verdict and the legend as lists.
std::string ablation_markdown(const AblationResult& ablation);

}  // namespace han
