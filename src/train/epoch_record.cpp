#include "han/train/epoch_record.h"

#include <cmath>
#include <limits>

namespace han {

nlohmann::json EpochRecord::to_json() const {
  auto number = [](double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); };
  return {{"epoch", epoch},
          {"train_loss", number(train_loss)},
          {"dev_accuracy", number(dev_accuracy)},
          {"dev_macro_f1", number(dev_macro_f1)},
          {"seconds", seconds},
          {"docs_per_second", docs_per_second},
          {"tokens_per_second", tokens_per_second},
          {"padding_fraction", padding_fraction},
          {"sentence_padding_fraction", sentence_padding_fraction},
          {"best", best}};
}

EpochRecord EpochRecord::from_json(const nlohmann::json& j) {
  auto number = [](const nlohmann::json& v) {
    return v.is_null() ? std::numeric_limits<double>::quiet_NaN() : v.get<double>();
  };
  EpochRecord e;
  e.epoch = j.at("epoch");
  e.train_loss = number(j.at("train_loss"));
  e.dev_accuracy = number(j.at("dev_accuracy"));
  e.dev_macro_f1 = number(j.at("dev_macro_f1"));
  e.seconds = j.at("seconds");
  e.docs_per_second = j.at("docs_per_second");
  e.tokens_per_second = j.at("tokens_per_second");
  e.padding_fraction = j.at("padding_fraction");
  e.sentence_padding_fraction = j.at("sentence_padding_fraction");
  e.best = j.at("best");
  return e;
}

}  // namespace han
