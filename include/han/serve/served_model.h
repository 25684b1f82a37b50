#pragma once
// A model as han serve holds it: the classifier, the tokenizer that reads for it and the
// predictor that answers for it, loaded once and never changed. A reload loads a new one
// beside it; requests hold the one they started with (shared_ptr) until they are answered.
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "han/infer/classifier.h"
#include "han/infer/predictor.h"
#include "han/text/tokenizer.h"

namespace han::serve {

struct ServedModel {
  std::string path;  // the model file (a run folder's model.han)
  Classifier classifier;
  nlohmann::json header;  // the file's JSON header
  Tokenizer tokenizer;
  Predictor predictor;    // one caller at a time: the batching thread
  double load_seconds = 0;
  nlohmann::json info;    // what GET /v1/model answers (set by whoever loads it)

  // Loads and checks the whole file (han::Error for anything incomplete or inconsistent).
  // `threads`: the predictor's (0 = every core).
  static std::shared_ptr<ServedModel> load(const std::string& path, int threads);

 private:
  ServedModel(std::string path, Classifier c, nlohmann::json header, int threads);
};

}  // namespace han::serve
