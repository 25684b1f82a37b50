#include "han/core/json_text.h"
#include "han/train/epoch_record.h"

#include <cmath>
#include <limits>

namespace han {

void EpochRecord::set_dev(const std::vector<std::pair<std::string, double>>& scores) {
  for (const auto& [name, value] : scores) {
    if (name == "accuracy") dev_accuracy = value;
    else if (name == "macro_f1") dev_macro_f1 = value;
    else if (name == "loss") dev_loss = value;
    else dev_more[name] = value;
  }
}

double EpochRecord::dev(const std::string& name) const {
  if (name == "accuracy") return dev_accuracy;
  if (name == "macro_f1") return dev_macro_f1;
  if (name == "loss") return dev_loss;
  const auto it = dev_more.find(name);
  return it == dev_more.end() ? std::numeric_limits<double>::quiet_NaN() : it->second;
}

nlohmann::json EpochRecord::dev_json() const {
  nlohmann::json j = {{"dev_accuracy", finite_or_null(dev_accuracy)},
                      {"dev_macro_f1", finite_or_null(dev_macro_f1)},
                      {"dev_loss", finite_or_null(dev_loss)}};
  for (const auto& [name, value] : dev_more) j["dev_" + name] = finite_or_null(value);
  return j;
}

EpochRecord EpochRecord::of_dev(const std::vector<std::pair<std::string, double>>& scores) {
  EpochRecord r;
  r.set_dev(scores);
  return r;
}

nlohmann::json EpochRecord::dev_scores_record() const {
  nlohmann::json j = nlohmann::json::object();
  const nlohmann::json all = dev_json();
  for (const auto& [key, value] : all.items())
    if (key != "dev_loss" && !value.is_null()) j[key] = value;
  return j;
}

nlohmann::json EpochRecord::to_json() const {
  nlohmann::json j = {{"epoch", epoch},
          {"train_loss", finite_or_null(train_loss)},
          {"seconds", seconds},
          {"docs_per_second", docs_per_second},
          {"tokens_per_second", tokens_per_second},
          {"padding_fraction", padding_fraction},
          {"sentence_padding_fraction", sentence_padding_fraction},
          {"best", best}};
  j.update(dev_json());
  return j;
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
  for (const auto& [key, value] : j.items())
    if (key.rfind("dev_", 0) == 0 && key != "dev_accuracy" && key != "dev_macro_f1" && key != "dev_loss")
      e.dev_more[key.substr(4)] = number_or_nan(value);
  return e;
}

}  // namespace han
