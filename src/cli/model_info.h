#pragma once
// What a model file says about itself: han info --json prints it, han serve answers it
// on GET /v1/model.
#include <nlohmann/json.hpp>
#include <string>

#include "han/core/types.h"
#include "han/infer/classifier.h"

namespace han::cli {

// model.bag, model.linear_member: the words shown per answer, strongest first.
constexpr std::size_t kBagWordsShown = 8;

// Every member's parameters and the linear member's.
Index model_parameters(const Classifier& c);

// `header`: the file's JSON header, as load_classifier reads it.
nlohmann::json model_info_json(const std::string& model, const Classifier& c, const nlohmann::json& header);

}  // namespace han::cli
