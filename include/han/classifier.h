#pragma once
// A trained classifier: everything a model file holds and prediction needs.
#include <string>
#include <vector>

#include "han/config.h"
#include "han/model.h"
#include "han/tokenizer.h"
#include "han/vocab.h"

namespace han {

struct Classifier {
  Config config;  // the effective training config
  Vocab vocab;
  std::vector<std::string> labels;
  HanParams params;

  Tokenizer tokenizer() const;
};

TokenizerOptions tokenizer_options(const TokenizerConfig& cfg);

// Writes atomically; `extra` keys (e.g. training summary) go into the JSON header.
void save_classifier(const std::string& path, const Classifier& c,
                     const nlohmann::json& extra = nlohmann::json::object());
// Refuses (han::Error naming the file) anything that is not a complete, consistent model.
Classifier load_classifier(const std::string& path);
// The JSON header of a model file (for `han info`), plus its format version.
nlohmann::json read_model_header(const std::string& path, std::uint32_t* version = nullptr);

}  // namespace han
