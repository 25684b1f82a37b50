#pragma once
// What an ablation's figures answer, in words: the verdict on each variant against renorm
// (better, worse, or no measurable difference over the seeds), and the legend of the
// table's columns. The terminal, report.md and report.html print the same sentences.
#include <string>
#include <vector>

#include "han/study/ablation_results.h"

namespace han {

// One sentence per variant compared with renorm, in the table's order; a sentence saying
// why nothing can be compared when renorm is not among the variants; and, when the linear
// member was blended into every variant, a sentence saying what that does to the figures.
std::vector<std::string> ablation_verdict(const AblationResult& ablation);

// The table's columns explained, one sentence each, for the task's scores (and how a
// multi-label variant's thresholds were set: trainer.calibrate).
std::vector<std::string> ablation_legend(const Config& cfg);

}  // namespace han
