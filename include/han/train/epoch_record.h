#pragma once
// What one training epoch measured: a line of metrics.jsonl, and part of a checkpoint.
#include <nlohmann/json.hpp>

namespace han {

struct EpochRecord {
  int epoch = 0;
  double train_loss = 0;
  double dev_accuracy = 0, dev_macro_f1 = 0, dev_loss = 0;  // NaN when there is no dev set
  double seconds = 0;
  double docs_per_second = 0, tokens_per_second = 0;  // real tokens
  double padding_fraction = 0;           // word level: padded / all word slots
  double sentence_padding_fraction = 0;  // sentence level
  bool best = false;
  nlohmann::json to_json() const;  // non-finite figures as null
  static EpochRecord from_json(const nlohmann::json& j);  // null back to NaN
};

}  // namespace han
