#pragma once
// Training that starts from a trained model (trainer.init, han train --init MODEL): to keep
// training it on more data, or to fine-tune it for new labels. The new run takes the
// model's architecture and tokenizer rules (a setting that contradicts them is an error
// naming the key), the tokenizer and model settings it does not set itself, the model's
// vocabulary (optionally extended, see CorpusBase) and its parameters; the output layer
// too when the task and labels are the same, else a fresh one for the new labels or task.
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "han/core/config.h"
#include "han/infer/classifier.h"
#include "han/text/corpus.h"

namespace han {

// The model cfg.trainer.init names (a checkpoint or a broken file is refused), or nothing.
std::optional<Classifier> load_init_model(const Config& cfg);

// `cfg` as a run from `parent` trains it: tokenizer.* and model.* keys that `given` (the keys
// the user set, as JSON) leaves out come from the parent's config, model.embeddings is not
// allowed (the embeddings are the parent's). An architecture key set to another value than
// the parent's is an Error, prefixed by origin(key path): the config file or the --set.
Config inherit_from_parent(const Config& cfg, const nlohmann::json& given, const Classifier& parent,
                           const std::function<std::string(const std::string&)>& origin);

// What load_corpus needs to keep the parent's vocabulary and labels.
CorpusBase corpus_base(const Classifier& parent, const Config& cfg);

// Copies the parent's parameters into `model` (built for the run's corpus): every layer,
// the embeddings of the parent's words (new words keep their fresh ones), and the output
// layer when the task and labels are the parent's (a regression model's target scale
// too). Logs which.
void start_from_parent(Classifier& model, const Classifier& parent);

// Whether a run of `task` over `labels` keeps the parent's output layer (and linear member):
// the same question, asked the same way.
bool keeps_output_layer(const Classifier& parent, Task task, const std::vector<std::string>& labels);

// The linear member a run from `parent` continues: the parent's, when it has one and the
// run keeps its task and labels (as the output layer is kept); else null (a fresh member).
const LinearMemberParams* continued_linear_member(const Classifier* parent, const Config& cfg,
                                                  const std::vector<std::string>& labels);

}  // namespace han
