#pragma once
// After training (trainer.calibrate, with a dev set), the best epoch's model is calibrated
// on dev: its temperature fitted (infer/temperature.h) and, for a multi-label model, its
// per-label thresholds tuned at that temperature (infer/thresholds.h). model.han is
// rewritten with them and a "calibration" record of what they changed on dev.
// An ensemble's temperature divides the log of its members' mean probabilities.
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "han/infer/calibration.h"
#include "han/infer/classifier.h"

namespace han {

struct DevCalibration {
  CalibrationScores scores;
  TemperatureChoice temperature;  // the fit, and why T = 1 was kept instead when it was
  // Multi-label, on dev: micro-F1 with every threshold at kDefaultThreshold, and tuned.
  double micro_f1_untuned = std::numeric_limits<double>::quiet_NaN();
  double micro_f1_tuned = std::numeric_limits<double>::quiet_NaN();
  nlohmann::json to_json() const;
  std::string to_text() const;  // one line for the log
};

// Whether a model trained with `cfg` is calibrated after training: asked for (`asked`, i.e.
// TrainOptions::calibrate, and trainer.calibrate), a dev set, and a task with probabilities.
bool calibrates_on_dev(const Config& cfg, bool asked, const Documents& dev);

// Fits model.head on dev (every document labelled); model (one, or an ensemble) is of a
// single-label or multi-label task.
DevCalibration calibrate_on_dev(Classifier& model, const Documents& dev, int threads);

// The same on the model file at `path`, rewritten (atomically) with the fitted head and
// the record under "calibration"; `head` receives the fitted head.
DevCalibration calibrate_model_file(const std::string& path, const Documents& dev, int threads,
                                    OutputHead& head);

}  // namespace han
