#include "han/infer/classifier.h"

#include <filesystem>

#include "han/core/error.h"
#include "han/infer/model_file.h"
#include "han/nn/parameters.h"

namespace han {

Tokenizer Classifier::tokenizer() const { return Tokenizer(tokenizer_options(config.tokenizer)); }

void save_classifier(const std::string& path, const Classifier& c, const nlohmann::json& extra,
                     const std::vector<NamedTensor>& extra_tensors) {
  nlohmann::json header = extra;
  header["format"] = "han";
  header["config"] = config_to_json(c.config);
  header["labels"] = c.labels;
  header["vocabulary"] = c.vocab.words();
  if (c.head.task != Task::single) header["head"] = head_to_json(c.head);
  std::vector<NamedTensor> tensors;
  HanParams::fields(c.params, [&](const std::string& name, const Matrix& m) {
    tensors.push_back({name, m});
  });
  tensors.insert(tensors.end(), extra_tensors.begin(), extra_tensors.end());
  save_model_file(path, header, tensors);
}

namespace {

template <class T>
T header_field(const nlohmann::json& header, const char* key, const std::string& path) {
  if (!header.contains(key)) throw Error(path + ": model file is corrupted (no \"" + key + "\")");
  try {
    return header.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw Error(path + ": model file is corrupted (bad \"" + key + "\")");
  }
}

// A checkpoint is a model file plus optimizer state: name it and say what to do instead.
std::string checkpoint_given_as_model(const std::string& path) {
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  const std::string shown = dir.empty() ? "." : dir.string();
  return path + ": this is a training checkpoint, not a model: continue the run with han train --resume " + shown +
         " (its best model so far is " + (dir / "model.han").string() + ")";
}

}  // namespace

Classifier load_classifier(const std::string& path, std::vector<NamedTensor>* extra_tensors,
                           nlohmann::json* header) {
  ModelFileContents contents = load_model_file(path);
  const nlohmann::json& h = contents.header;
  if (!extra_tensors && h.contains("checkpoint")) throw Error(checkpoint_given_as_model(path));
  Classifier c;
  c.config = stored_config_from_json(header_field<nlohmann::json>(h, "config", path), path + " (config)");
  c.labels = header_field<std::vector<std::string>>(h, "labels", path);
  const Task task = c.config.model.task;
  if (c.labels.empty() && task != Task::regression) throw Error(path + ": model file is corrupted (no labels)");
  c.head = head_from_json(h.contains("head") ? h["head"] : nlohmann::json(), task, c.labels.size(), path);
  const Index outputs = head_outputs(task, c.labels.size());
  c.vocab = Vocab::from_words(header_field<std::vector<std::string>>(h, "vocabulary", path));
  // Shapes come from the config; every stored tensor must match one of them exactly. The
  // stored sizes are checked first, so a corrupt config cannot demand a huge allocation.
  double stored = 0;
  for (const NamedTensor& t : contents.tensors) stored += static_cast<double>(t.value.size());
  const double expected = han_parameter_count(c.config.model, static_cast<Index>(c.vocab.size()), outputs);
  if (stored < expected) throw Error(path + ": model file is corrupted (tensors do not match its config)");
  Rng rng(0);
  c.params = han_init(c.config.model, static_cast<Index>(c.vocab.size()), outputs, rng);
  std::size_t matched = 0;
  HanParams::fields(c.params, [&](const std::string& name, Matrix& m) {
    for (NamedTensor& t : contents.tensors) {
      if (t.name != name) continue;
      if (t.value.rows() != m.rows() || t.value.cols() != m.cols())
        throw Error(path + ": model file is corrupted (tensor " + name + " has the wrong shape)");
      m = std::move(t.value);
      t.name.clear();  // taken
      ++matched;
      return;
    }
    throw Error(path + ": model file is corrupted (tensor " + name + " is missing)");
  });
  if (matched != contents.tensors.size()) {
    if (!extra_tensors) throw Error(path + ": model file is corrupted (unexpected tensors)");
    for (NamedTensor& t : contents.tensors)
      if (!t.name.empty()) extra_tensors->push_back(std::move(t));
  }
  if (header) *header = std::move(contents.header);
  return c;
}

}  // namespace han
