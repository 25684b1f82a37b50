#include "han/core/number_text.h"

#include <cmath>
#include <cstdio>

namespace han {

std::string format_fixed(double x, int digits) {
  if (std::isnan(x)) return "n/a";
  char buf[64];  // enough for any double up to 1e30 at the digits han asks for
  const int n = std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  if (n >= 0 && static_cast<std::size_t>(n) < sizeof buf) return buf;
  std::string out(static_cast<std::size_t>(n) + 1, '\0');  // a huge number: no truncation
  std::snprintf(out.data(), out.size(), "%.*f", digits, x);
  out.pop_back();
  return out;
}

}  // namespace han
