#pragma once
// The progress bar's text for a training epoch, shared by train and ablate.
#include <string>

#include "han/train/trainer.h"

namespace han::cli {

// "epoch 2/5 loss 0.4123 3400 docs/s ETA 0:12" (the ETA is the epoch's).
std::string epoch_progress_text(const TrainProgress& p);
// How far through its epoch the run is.
double epoch_fraction(const TrainProgress& p);

}  // namespace han::cli
