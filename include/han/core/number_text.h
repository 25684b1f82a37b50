#pragma once
// Numbers as text for people: one formatting rule for tables, pages and predictions.
#include <string>

namespace han {

// x with exactly `digits` digits after the point ("%.*f"): 0.5 -> "0.5000" for 4; an
// undefined number (NaN: a dev score without a dev set) is "n/a".
std::string format_fixed(double x, int digits);

}  // namespace han
