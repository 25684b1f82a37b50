#include "model_info.h"

#include <vector>

#include "han/infer/bag_words.h"
#include "han/nn/parameters.h"

namespace han::cli {

Index model_parameters(const Classifier& c) {
  // From the shapes, not the tensors: a model used in place holds some only in its file.
  const Index outputs = head_outputs(c.config.model.task, c.labels.size());
  const LinearMemberParams* linear = c.linear_member();
  return static_cast<Index>(han_parameter_count(c.config.model, static_cast<Index>(c.vocab.size()), outputs)) *
             c.config.trainer.ensemble +
         (linear ? (linear->features() + 1) * outputs : 0);
}

nlohmann::json model_info_json(const std::string& model, const Classifier& c, const nlohmann::json& header) {
  nlohmann::json info = {{"model", model},
                         {"format_version", c.format_version},
                         {"task", to_string(c.head.task)},
                         {"labels", c.labels},
                         {"vocabulary_size", c.vocab.size()},
                         {"parameters", model_parameters(c)},
                         {"ensemble", c.config.trainer.ensemble},
                         {"config", config_to_json(c.config)}};
  if (header.contains("trained")) info["trained"] = header["trained"];
  if (header.contains("calibration")) info["calibration"] = header["calibration"];
  if (head_has_section(c.head)) info["head"] = head_to_json(c.head);
  const bool thresholds = c.head.task == Task::multilabel && c.head.thresholds.size() == c.labels.size();
  for (std::size_t k = 0; thresholds && k < c.labels.size(); ++k) info["thresholds"][c.labels[k]] = c.head.thresholds[k];
  if (!c.config.trainer.init.empty()) info["parent"] = c.config.trainer.init;  // the model it was trained from
  for (const BagLeaning& b : bag_top_words(c, kBagWordsShown))
    info["bag_words"].push_back({{"answer", b.answer}, {"words", b.words}});
  return info;
}

}  // namespace han::cli
