#include "han/core/json_text.h"
#include "han/train/epoch_record.h"

#include <cmath>
#include <limits>

namespace han {

nlohmann::json EpochRecord::to_json() const {
  return {{"epoch", epoch},
          {"train_loss", finite_or_null(train_loss)},
          {"dev_accuracy", finite_or_null(dev_accuracy)},
          {"dev_macro_f1", finite_or_null(dev_macro_f1)},
          {"dev_loss", finite_or_null(dev_loss)},
          {"seconds", seconds},
          {"docs_per_second", docs_per_second},
          {"tokens_per_second", tokens_per_second},
          {"padding_fraction", padding_fraction},
          {"sentence_padding_fraction", sentence_padding_fraction},
          {"best", best}};
}

EpochRecord EpochRecord::from_json(const nlohmann::json& j) {
  EpochRecord e;
  e.epoch = j.at("epoch");
  e.train_loss = number_or_nan(j.at("train_loss"));
  e.dev_accuracy = number_or_nan(j.at("dev_accuracy"));
  e.dev_macro_f1 = number_or_nan(j.at("dev_macro_f1"));
  // Checkpoints from before dev_loss was recorded lack it.
  e.dev_loss = j.contains("dev_loss") ? number_or_nan(j.at("dev_loss")) : std::numeric_limits<double>::quiet_NaN();
  e.seconds = j.at("seconds");
  e.docs_per_second = j.at("docs_per_second");
  e.tokens_per_second = j.at("tokens_per_second");
  e.padding_fraction = j.at("padding_fraction");
  e.sentence_padding_fraction = j.at("sentence_padding_fraction");
  e.best = j.at("best");
  return e;
}

}  // namespace han
