#include "han/text/target_scale.h"

#include <algorithm>
#include <cmath>

#include "han/core/error.h"

namespace han {

double TargetScale::nearest_seen(double y) const {
  if (seen.empty()) return y;
  const auto above = std::lower_bound(seen.begin(), seen.end(), y);
  if (above == seen.begin()) return *above;
  if (above == seen.end()) return seen.back();
  return y - *(above - 1) <= *above - y ? *(above - 1) : *above;
}

TargetScale target_scale(const Documents& train, const std::string& train_path) {
  TargetScale s;
  double sum = 0;
  for (const DocumentView d : train) sum += d.target;
  s.mean = sum / static_cast<double>(std::max<std::size_t>(train.size(), 1));
  double squares = 0;
  for (const DocumentView d : train) squares += (d.target - s.mean) * (d.target - s.mean);
  s.sd = std::sqrt(squares / static_cast<double>(std::max<std::size_t>(train.size(), 1)));
  if (!(s.sd > 0)) throw Error(train_path + ": every training target is the same number: nothing to learn");
  for (const DocumentView d : train) s.seen.push_back(d.target);
  std::sort(s.seen.begin(), s.seen.end());
  s.seen.erase(std::unique(s.seen.begin(), s.seen.end()), s.seen.end());
  if (s.seen.size() > kMaxSeenTargets) s.seen.clear();
  return s;
}

}  // namespace han
