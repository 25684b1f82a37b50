#pragma once
// A trained classifier: everything a model file holds and prediction needs. It is one
// model, or an ensemble (config.trainer.ensemble = N > 1) of N models that share the
// config, vocabulary and labels and differ in their seeds; prediction averages them.
#include <string>
#include <vector>

#include "han/core/config.h"
#include "han/infer/model_file.h"
#include "han/nn/head.h"
#include "han/nn/linear_member.h"
#include "han/nn/model.h"
#include "han/text/documents.h"
#include "han/text/tokenizer.h"
#include "han/text/vocab.h"

namespace han {

struct Classifier {
  Config config;  // the effective training config
  Vocab vocab;
  std::vector<std::string> labels;     // none for regression
  HanParams params;                     // the model; in an ensemble, its first member
  std::vector<HanParams> more_members;  // an ensemble's other members, in seed order; else empty
  OutputHead head;  // the task's output (model.task); stored as the header's "head" unless single
  std::uint32_t format_version = kModelFormatVersion;  // of the file it was loaded from
  LinearMemberParams linear{};  // model.linear_member's model, stored as "linear.<tensor>"; else empty

  // Reads documents as the model was trained to: whole when its linear member reads the
  // whole text; the HAN then reads them within caps() (Documents::set_caps).
  Tokenizer tokenizer() const;
  Caps caps() const;
  // Every member, the first one first (one for a single model).
  std::vector<const HanParams*> members() const;
  // The linear member, or null without one.
  const LinearMemberParams* linear_member() const { return linear.empty() ? nullptr : &linear; }
  // The linear member with its share of the average (config.model.linear_weight).
  WeightedLinearMember weighted_linear_member() const { return {linear_member(), config.model.linear_weight}; }
};

// An ensemble's file names member k's tensors (k = 1..N) "member<k>.<tensor>"; a single
// model's have no prefix.
std::string member_tensor_prefix(int member, int members);

// Writes atomically; `extra` keys (e.g. training summary) go into the JSON header and
// `extra_tensors` (e.g. a checkpoint's optimizer state) beside the model's own.
void save_classifier(const std::string& path, const Classifier& c,
                     const nlohmann::json& extra = nlohmann::json::object(),
                     const std::vector<NamedTensor>& extra_tensors = {});
// A run folder stands for its model.han; a folder without one is an error saying why
// (an unfinished run: how to continue it). Any other path is returned as it is.
std::string model_file_in(const std::string& path);

// Where a loaded model's largest parts live. copied: in memory of its own, the whole file
// read and checked as it loads (training, serving, and what saves a model again). mapped:
// the vocabulary, the embedding tables and the linear member's weights, idf and pairs stay
// in the mapped file and are checked a chunk at a time as they are read (format 3 files;
// older ones are copied). Loading then reads the header and the small tensors, and each
// prediction the parts its words use.
enum class Residence { copied, mapped };

// Refuses (han::Error naming the file) anything that is not a complete, consistent model.
// `path` is a model file or a run folder (model_file_in).
// Tensors that are not the model's go to *extra_tensors if given, else are an error;
// *header receives the JSON header if given.
Classifier load_classifier(const std::string& path, std::vector<NamedTensor>* extra_tensors = nullptr,
                           nlohmann::json* header = nullptr, Residence residence = Residence::copied);

}  // namespace han
