#pragma once
// What one training epoch measured: a line of metrics.jsonl, and part of a checkpoint.
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace han {

struct EpochRecord {
  static constexpr double kNoScore = std::numeric_limits<double>::quiet_NaN();
  int epoch = 0;
  double train_loss = 0;
  // NaN when there is no dev set or the task has none.
  double dev_accuracy = kNoScore, dev_macro_f1 = kNoScore, dev_loss = kNoScore;
  std::map<std::string, double> dev_more;  // the task's other dev scores by name (micro_f1, rmse, ...)
  double seconds = 0;
  double docs_per_second = 0, tokens_per_second = 0;  // real tokens
  double padding_fraction = 0;           // word level: padded / all word slots
  double sentence_padding_fraction = 0;  // sentence level
  bool best = false;
  // Takes a task's headline dev scores (TaskScores::headline): accuracy, macro_f1 and loss
  // into their fields, the others into dev_more.
  void set_dev(const std::vector<std::pair<std::string, double>>& scores);
  // A dev score by name (NaN when the record has none).
  double dev(const std::string& name) const;
  nlohmann::json to_json() const;  // non-finite figures as null; dev_more as dev_<name>
  // The dev scores alone, as to_json names them: dev_accuracy, dev_macro_f1, dev_loss, dev_<more>.
  nlohmann::json dev_json() const;
  static EpochRecord from_json(const nlohmann::json& j);  // null back to NaN
  // A record of these dev scores alone (TaskScores::headline).
  static EpochRecord of_dev(const std::vector<std::pair<std::string, double>>& scores);
  // The dev scores a model file's trained record keeps: dev_json() without the loss and
  // without the scores the task has none of.
  nlohmann::json dev_scores_record() const;
};

}  // namespace han
