#include "training_progress.h"

#include <cstdio>

#include "logging.h"

namespace han::cli {

double epoch_fraction(const TrainProgress& p) {
  return static_cast<double>(p.batch) / static_cast<double>(p.batches);
}

std::string epoch_progress_text(const TrainProgress& p) {
  char text[160];
  std::snprintf(text, sizeof text, "epoch %d/%d loss %.4f %.0f docs/s %s", p.epoch, p.epochs, p.mean_loss,
                p.docs_per_second, format_eta(epoch_fraction(p), p.seconds).c_str());
  return text;
}

}  // namespace han::cli
