#include "han/core/json_text.h"
#include "han/train/checkpoint.h"

#include <algorithm>
#include <cmath>

#include "han/core/error.h"

namespace han {

nlohmann::json TrainState::to_json() const {
  nlohmann::json h = nlohmann::json::array();
  for (const EpochRecord& r : history) h.push_back(r.to_json());
  return {{"epoch", epoch}, {"next_batch", next_batch}, {"loss_sum", loss_sum}, {"epoch_seconds", epoch_seconds},
          {"docs_seen", docs_seen}, {"tokens_seen", tokens_seen}, {"sentences_seen", sentences_seen},
          {"word_slots", word_slots}, {"sentence_slots", sentence_slots},
          {"best_score", finite_or_null(best_score)},
          {"best_epoch", best_epoch}, {"epochs_without_gain", epochs_without_gain}, {"history", h}};
}

TrainState TrainState::from_json(const nlohmann::json& j) {
  TrainState s;
  s.epoch = j.at("epoch");
  s.next_batch = j.at("next_batch");
  s.loss_sum = j.at("loss_sum");
  s.epoch_seconds = j.at("epoch_seconds");
  s.docs_seen = j.at("docs_seen");
  s.tokens_seen = j.at("tokens_seen");
  s.sentences_seen = j.at("sentences_seen");
  s.word_slots = j.at("word_slots");
  s.sentence_slots = j.at("sentence_slots");
  // null is "no best epoch yet": -inf, below any score.
  s.best_score = j.at("best_score").is_null() ? -std::numeric_limits<double>::infinity() : j.at("best_score").get<double>();
  s.best_epoch = j.at("best_epoch");
  s.epochs_without_gain = j.at("epochs_without_gain");
  for (const nlohmann::json& r : j.at("history")) s.history.push_back(EpochRecord::from_json(r));
  return s;
}

void TrainState::start_epoch(int e) {
  epoch = e;
  next_batch = 0;
  loss_sum = epoch_seconds = 0;
  docs_seen = tokens_seen = sentences_seen = word_slots = sentence_slots = 0;
}

void save_checkpoint(const std::string& path, const Classifier& model, Optimizer& optimizer,
                     const std::vector<ParamRef>& refs, const TrainState& state) {
  std::vector<NamedTensor> extra;
  for (const ParamRef& r : optimizer.state(refs)) extra.push_back({"optimizer." + r.name, *r.value});
  save_classifier(path, model, {{"checkpoint", state.to_json()}, {"optimizer_steps", optimizer.steps()}}, extra);
}

TrainState load_checkpoint(const std::string& path, Classifier& model, Optimizer& optimizer,
                           const std::vector<ParamRef>& refs) {
  std::vector<NamedTensor> extra;
  nlohmann::json header;
  Classifier stored = load_classifier(path, &extra, &header);
  if (stored.vocab.words() != model.vocab.words() || stored.labels != model.labels)
    throw Error(path + ": the training data changed since this checkpoint (vocabulary or labels differ)");
  if (config_to_json(stored.config) != config_to_json(model.config))
    throw Error(path + ": the config changed since this checkpoint");
  model.params = std::move(stored.params);
  model.head = stored.head;  // a run from a regression model keeps its parent's target scale
  for (const ParamRef& r : optimizer.state(refs)) {
    auto it = std::find_if(extra.begin(), extra.end(), [&](const NamedTensor& t) { return t.name == "optimizer." + r.name; });
    if (it == extra.end() || it->value.rows() != r.value->rows() || it->value.cols() != r.value->cols())
      throw Error(path + ": checkpoint is corrupted (optimizer state " + r.name + ")");
    *r.value = it->value;
  }
  try {
    optimizer.set_steps(header.at("optimizer_steps").get<long long>());
    return TrainState::from_json(header.at("checkpoint"));
  } catch (const nlohmann::json::exception&) {
    throw Error(path + ": checkpoint is corrupted (training state)");
  }
}

}  // namespace han
