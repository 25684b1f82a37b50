#pragma once
// report.html for han ablate: self-contained (inline SVG and CSS only), with learning
// curves, accuracy with error bars, the padding figures, and example documents shaded
// by attention under `none` and `renorm` side by side.
#include <string>

#include "han/study/ablation_results.h"

namespace han {

std::string ablation_report_html(const AblationResult& ablation);

}  // namespace han
