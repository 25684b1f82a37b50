#include "han/train/init_model.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <iterator>
#include <map>

#include "han/core/error.h"
#include "han/core/config_enums.h"
#include "han/nn/model.h"
#include "han/text/reading.h"
#include "han/text/target_scale.h"

namespace han {
namespace {

using nlohmann::json;

// The settings that shape the parameters or the vocabulary: a run from a model cannot change them.
const std::pair<const char*, const char*> kArchitectureKeys[] = {
    {"model", "embedding_dim"}, {"model", "word_hidden"}, {"model", "sentence_hidden"}, {"model", "attention_dim"},
    {"model", "mask"},          {"model", "pooling"},     {"model", "bag"},
    {"tokenizer", "lowercase"}, {"tokenizer", "version"}};

bool sets_key(const json& given, const std::string& section, const std::string& key) {
  if (!given.is_object() || !given.contains(section)) return false;
  const json& s = given.at(section);
  return s.is_object() && s.contains(key);
}

void refuse_changed_architecture(const json& wanted, const json& given, const json& parent_cfg,
                                 const std::string& parent_path,
                                 const std::function<std::string(const std::string&)>& origin) {
  for (const auto& [section, key] : kArchitectureKeys) {
    if (!sets_key(given, section, key) || wanted[section][key] == parent_cfg[section][key]) continue;
    const std::string path = std::string(section) + "." + key;
    throw Error(origin(path) + ": " + path + " is " + wanted[section][key].dump() + ", but the model it starts from (" +
                parent_path + ") has " + parent_cfg[section][key].dump() +
                ": a model trained further keeps its architecture; leave " + path + " out");
  }
}

// A regression model trained further keeps the parent's standardisation (its output layer
// was trained for it); the targets seen for rounding are both runs' (none past the limit).
TargetScale continued_scale(const TargetScale& parent, const TargetScale& run) {
  TargetScale s = parent;
  if (parent.seen.empty() || run.seen.empty()) {
    s.seen.clear();
    return s;
  }
  std::vector<double> both;
  std::set_union(parent.seen.begin(), parent.seen.end(), run.seen.begin(), run.seen.end(), std::back_inserter(both));
  s.seen = both.size() > kMaxSeenTargets ? std::vector<double>{} : both;
  return s;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

std::optional<Classifier> load_init_model(const Config& cfg) {
  if (cfg.trainer.init.empty()) return std::nullopt;
  return load_classifier(cfg.trainer.init);
}

Config inherit_from_parent(const Config& cfg, const json& given, const Classifier& parent,
                           const std::function<std::string(const std::string&)>& origin) {
  if (!cfg.model.embeddings.empty())
    throw Error(origin("model.embeddings") + ": model.embeddings: a run that starts from a model (trainer.init, --init) "
                "takes that model's embeddings; leave model.embeddings out (trainer.extend_vocab=true gives new words "
                "fresh ones)");
  // Every key spelled out: a key left out at its default must compare and inherit as that default.
  const json parent_cfg = config_to_full_json(parent.config);
  json merged = config_to_full_json(cfg);
  refuse_changed_architecture(merged, given, parent_cfg, cfg.trainer.init, origin);
  for (const char* section : {"tokenizer", "model"})
    for (const auto& [key, value] : parent_cfg[section].items())
      if (key != "embeddings" && !sets_key(given, section, key)) merged[section][key] = value;
  Config child = config_from_json(merged, cfg.trainer.init + " (config)");
  // The child has no model.embeddings, so "auto" would decide anew (trained): it keeps what
  // auto decided for the parent's table instead.
  if (child.model.freeze_embeddings == Switch::auto_)
    child.model.freeze_embeddings = frozen_embeddings(parent.config) ? Switch::on : Switch::off;
  // Without extend_vocab the vocabulary is the parent's, made with the parent's min_count:
  // an "auto" has nothing to choose.
  if (!child.trainer.extend_vocab && child.tokenizer.min_count == kAutoMinCount)
    child.tokenizer.min_count = parent.config.tokenizer.min_count;
  // The child trains its own linear member, whose weight is its own (as given, else its default).
  if (!sets_key(given, "model", "linear_weight")) child.model.linear_weight = cfg.model.linear_weight;
  return child;
}

CorpusBase corpus_base(const Classifier& parent, const Config& cfg) {
  // Another task asks another question: its labels are the data's own.
  const bool same_task = cfg.model.task == parent.config.model.task;
  return {parent.vocab.words(), same_task ? parent.labels : std::vector<std::string>{}, cfg.trainer.extend_vocab};
}

const LinearMemberParams* continued_linear_member(const Classifier* parent, const Config& cfg,
                                                  const std::vector<std::string>& labels) {
  if (!parent || !parent->linear_member()) return nullptr;
  if (!keeps_output_layer(*parent, cfg.model.task, labels)) {
    spdlog::info("linear member: the parent's answers other labels or another task: this run's starts afresh");
    return nullptr;
  }
  if (parent->linear.gram_count() == 0 && cfg.model.linear_chars == Switch::on)
    spdlog::info("linear member: the parent's reads no character n-grams and keeps its features: model.linear_chars "
                 "true applies to a member trained afresh");
  if (parent->linear.gram_count() > 0 && !keeps_unknown_words(cfg.model)) {  // its n-grams read what is not read
    spdlog::info("linear member: the parent's reads character n-grams and model.linear_chars is false: this run's "
                 "starts afresh");
    return nullptr;
  }
  spdlog::info("linear member: continues the parent's (trainer.init): its weights, trained further on this run's data");
  return parent->linear_member();
}

bool keeps_output_layer(const Classifier& parent, Task task, const std::vector<std::string>& labels) {
  return task == parent.config.model.task && labels == parent.labels;
}

void start_from_parent(Classifier& model, const Classifier& parent) {
  const Task task = model.config.model.task;
  // The output layer answers the parent's question: kept only when the question is the same.
  const bool same_labels = keeps_output_layer(parent, task, model.labels);
  std::map<std::string, const Matrix*> from;
  HanParams::fields(parent.params, [&](const std::string& name, const Matrix& m) { from[name] = &m; });
  HanParams::fields(model.params, [&](const std::string& name, Matrix& m) {
    const Matrix& p = *from.at(name);
    if (name == kEmbeddingTable) {  // the parent's words first, the new words' columns stay fresh
      HAN_ASSERT(p.rows() == m.rows() && p.cols() <= m.cols());
      m.leftCols(p.cols()) = p;
    } else if (name.rfind("bag.", 0) == 0) {  // word columns, like the embeddings; per label, like the output
      if (!same_labels) return;
      HAN_ASSERT(p.rows() == m.rows() && p.cols() <= m.cols());
      m.leftCols(p.cols()) = p;
    } else if (same_labels || name.rfind("output.", 0) != 0) {
      HAN_ASSERT(p.rows() == m.rows() && p.cols() == m.cols());
      m = p;
    }
  });
  if (same_labels && task == Task::regression) model.head.scale = continued_scale(parent.head.scale, model.head.scale);
  const std::string& parent_path = model.config.trainer.init;
  if (!parent.more_members.empty())
    spdlog::info("init: {} is an ensemble of {}: the run starts from its first member (seed {}), not the others",
                 parent_path, parent.more_members.size() + 1, parent.config.trainer.seed);
  if (task != parent.config.model.task)
    spdlog::info("init: starting from {}, a {} model, for model.task {}: a fresh output layer, every other layer kept",
                 parent_path, std::string(to_string(parent.config.model.task)), std::string(to_string(task)));
  else if (task == Task::regression)
    spdlog::info("init: starting from {}: training it further, output layer and target scale (mean {:.4g}, sd {:.4g}) "
                 "included", parent_path, model.head.scale.mean, model.head.scale.sd);
  else if (same_labels)
    spdlog::info("init: starting from {}, same labels ({}): training it further, output layer included", parent_path,
                 joined(model.labels));
  else
    spdlog::info("init: starting from {}, new labels ({}; the model had {}): a fresh output layer, every other layer "
                 "kept", parent_path, joined(model.labels), joined(parent.labels));
}

}  // namespace han
