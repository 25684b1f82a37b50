#include "han/infer/classifier.h"

#include <algorithm>
#include <filesystem>
#include <tuple>

#include "han/core/error.h"
#include "han/core/json_text.h"
#include "han/infer/model_file.h"
#include "model_file_v3.h"
#include "han/nn/word_pairs.h"
#include "han/nn/parameters.h"
#include "han/text/reading.h"

namespace han {

Tokenizer Classifier::tokenizer() const { return Tokenizer(reading_options(config)); }

Caps Classifier::caps() const { return document_caps(config.tokenizer); }

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

// Formats 2 and 3 store the vocabulary as one string, words separated by '\n' (no word
// holds one: words are tokens or a vectors file's first field): parsing one long JSON
// string is several times faster than 40k short ones. Format 1 stored an array.
std::vector<std::string> stored_words(const nlohmann::json& header, const std::string& path) {
  if (header.contains("vocabulary") && header.at("vocabulary").is_string())
    return split_joined(header.at("vocabulary").get_ref<const std::string&>());
  return header_field<std::vector<std::string>>(header, "vocabulary", path);
}

// The header's labels: distinct and non-empty, as training writes them. A hand-made file
// with "pos" twice would answer one name for two classes and score gold labels as the first.
std::vector<std::string> stored_labels(const nlohmann::json& header, const std::string& path) {
  std::vector<std::string> labels = header_field<std::vector<std::string>>(header, "labels", path);
  std::vector<std::string> sorted = labels;
  std::sort(sorted.begin(), sorted.end());
  if (!sorted.empty() && sorted.front().empty()) throw Error(path + ": model file is corrupted (an empty label)");
  const auto twice = std::adjacent_find(sorted.begin(), sorted.end());
  if (twice != sorted.end())
    throw Error(path + ": model file is corrupted (label " + quote_excerpt(*twice) + " is listed twice)");
  return labels;
}

// The vocabulary, its faults (no "<pad>", a word twice) named as the file's.
Vocab stored_vocab(const nlohmann::json& header, const std::string& path) {
  try {
    return Vocab::from_words(stored_words(header, path));
  } catch (const Error& e) {
    throw Error(path + ": model file is corrupted (" + e.what() + ")");
  }
}

// A checkpoint is a model file plus optimizer state: name it and say what to do instead.
std::string checkpoint_given_as_model(const std::string& path) {
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  const std::string shown = dir.empty() ? "." : dir.string();
  return path + ": this is a training checkpoint, not a model: continue the run with han train --resume " + shown +
         " (its best model so far is " + (dir / "model.han").string() + ")";
}

const std::string kLinearPrefix = "linear.";

// The tensors prediction reads a few columns of, one per word or feature: the ones a
// model used in place (Residence::mapped) leaves in its file.
TensorView* stored_slot(HanParams& p, const std::string& field) {
  return field == kEmbeddingTable ? &p.embedding.stored : nullptr;
}
TensorView* stored_slot(LinearMemberParams& p, const std::string& field) {
  if (field == "W") return &p.W_stored;
  if (field == "idf") return &p.idf_stored;
  if (field == "pairs") return &p.pairs_stored;
  return nullptr;
}
bool kept_in_place(const std::string& name) {
  const std::size_t dot = name.rfind(kEmbeddingTable);
  if (dot != std::string::npos && dot + std::string(kEmbeddingTable).size() == name.size() &&
      (dot == 0 || name[dot - 1] == '.'))
    return true;
  return name == kLinearPrefix + "W" || name == kLinearPrefix + "idf" || name == kLinearPrefix + "pairs" ||
         name == kLinearPrefix + "grams" || name == kLinearPrefix + "word_gram_counts" ||
         name == kLinearPrefix + "word_grams" ||
         name == model_v3::kVocabularyText || name == model_v3::kVocabularyOffsets || name == model_v3::kVocabularySlots;
}

// The vocabulary: in place when the file left its arrays mapped (format 3), else from the
// header, its faults (no "<pad>", a word twice) named as the file's.
Vocab take_vocabulary(std::vector<NamedTensor>& tensors, const nlohmann::json& header, const std::string& path,
                      std::size_t& matched) {
  Vocab::Stored stored;
  for (NamedTensor& t : tensors) {
    TensorView* slot = t.name == model_v3::kVocabularyText      ? &stored.text
                       : t.name == model_v3::kVocabularyOffsets ? &stored.offsets
                       : t.name == model_v3::kVocabularySlots   ? &stored.slots
                                                                : nullptr;
    if (!slot || t.stored.empty()) continue;
    *slot = std::move(t.stored);
    t.name.clear();
    ++matched;
  }
  if (stored.text.empty() && stored.offsets.empty() && stored.slots.empty()) return stored_vocab(header, path);
  if (stored.text.empty() || stored.offsets.empty() || stored.slots.empty() || header.contains("vocabulary"))
    throw Error(path + ": model file is corrupted (its vocabulary)");
  return Vocab::in_place(std::move(stored), path);
}

// Parameters of type P in the shapes `params` holds, moved out of `tensors` (a taken
// tensor's name is cleared): those named `prefix` + each parameter's name. A tensor left
// in its file goes to P's stored view of it, and the Matrix is emptied.
template <class P>
P take_tensors(std::vector<NamedTensor>& tensors, P params, const std::string& prefix, const std::string& path,
               std::size_t& matched) {
  P::fields(params, [&](const std::string& field, Matrix& m) {
    const std::string name = prefix + field;
    for (NamedTensor& t : tensors) {
      if (t.name != name) continue;
      const bool stored = !t.stored.empty();
      if ((stored ? t.stored.rows() : t.value.rows()) != m.rows() || (stored ? t.stored.cols() : t.value.cols()) != m.cols())
        throw Error(path + ": model file is corrupted (tensor " + name + " has the wrong shape)");
      TensorView* slot = stored ? stored_slot(params, field) : nullptr;
      HAN_ASSERT(stored == (slot != nullptr));
      if (slot) {
        *slot = std::move(t.stored);
        m = Matrix();
      } else {
        m = std::move(t.value);
      }
      t.name.clear();  // taken
      ++matched;
      return;
    }
    if (m.size() == 0) return;  // an empty tensor (the bag term when off) is not stored
    throw Error(path + ": model file is corrupted (tensor " + name + " is missing)");
  });
  return params;
}

// One model's parameters, in the shapes c's config gives.
HanParams take_member(std::vector<NamedTensor>& tensors, const Classifier& c, const std::string& prefix,
                      const std::string& path, std::size_t& matched) {
  return take_tensors(tensors,
                      han_shape(c.config.model, static_cast<Index>(c.vocab.size()),
                                head_outputs(c.config.model.task, c.labels.size())),
                      prefix, path, matched);
}

// The stored word pairs of the linear member ("linear.pairs"; none in files from before
// them), checked: the member's features follow from them.
// Pairs left in the file are not read to check their order: their bytes are checked as
// read, like every tensor's, and an unordered pair in a hand-made file is only never found
// (find_word_pair; LinearFeatureNamer checks its ids), as a hand-made weight is only wrong.
NamedTensor take_linear_pairs(std::vector<NamedTensor>& tensors, Index words, const std::string& path,
                              std::size_t& matched) {
  for (NamedTensor& t : tensors) {
    if (t.name != kLinearPrefix + "pairs") continue;
    if (!t.stored.empty() && t.stored.rows() != 2)
      throw Error(path + ": model file is corrupted (the word pairs tensor does not have 2 rows)");
    if (const std::string problem = t.stored.empty() ? word_pairs_problem(t.value, words) : ""; !problem.empty())
      throw Error(path + ": model file is corrupted (" + problem + ")");
    t.name.clear();
    ++matched;
    return std::move(t);
  }
  return NamedTensor("pairs", Matrix(2, 0));
}

// The stored character n-gram tables of the linear member (none in files from before
// them, or without them). The tables may stay in the file: the counts are read and checked
// whole by index_char_grams, the buckets and the words' n-grams checked as they are read.
CharGrams take_char_grams(std::vector<NamedTensor>& tensors, Index words, const std::string& path,
                          std::size_t& matched) {
  CharGrams g;
  g.origin = path;
  const std::tuple<const char*, Matrix*, TensorView*> parts[] = {{"grams", &g.buckets, &g.buckets_stored},
                                                                 {"word_gram_counts", &g.word_counts, &g.word_counts_stored},
                                                                 {"word_grams", &g.word_grams, &g.word_grams_stored}};
  for (const auto& [name, m, view] : parts)
    for (NamedTensor& t : tensors) {
      if (t.name != kLinearPrefix + name) continue;
      const bool in_place = !t.stored.empty();
      if ((in_place ? t.stored.rows() : t.value.rows()) != 1 || (in_place && !view))
        throw Error(path + ": model file is corrupted (the " + std::string(name) + " tensor)");
      if (in_place) {
        *view = std::move(t.stored);
        *m = Matrix(1, 0);
      } else {
        *m = std::move(t.value);
      }
      t.name.clear();
      ++matched;
    }
  if (const std::string problem = index_char_grams(g, words); !problem.empty())
    throw Error(path + ": model file is corrupted (" + problem + ")");
  return g;
}

// model.linear_member's model: (C, F), (C, 1), (F, 1), the (2, K) pairs and the G n-grams,
// F = V + K + G.
LinearMemberParams take_linear_member(std::vector<NamedTensor>& tensors, const Classifier& c, const std::string& path,
                                      std::size_t& matched) {
  const Index outputs = head_outputs(c.config.model.task, c.labels.size());
  const Index words = static_cast<Index>(c.vocab.size());
  NamedTensor pairs = take_linear_pairs(tensors, words, path, matched);
  CharGrams grams = take_char_grams(tensors, words, path, matched);
  const Index features = words + (pairs.stored.empty() ? pairs.value.cols() : pairs.stored.cols()) + grams.count();
  LinearMemberParams shape;  // (allocated, not filled: replaced by the file's tensors)
  shape.W.resize(outputs, features);
  shape.b.resize(outputs, 1);
  shape.idf.resize(features, 1);
  shape.pairs.resize(2, 0);
  LinearMemberParams p = take_tensors(tensors, std::move(shape), kLinearPrefix, path, matched);
  p.pairs = std::move(pairs.value);
  p.pairs_stored = std::move(pairs.stored);
  p.grams = std::move(grams);
  // Documents keep their unknown words for the n-grams only when the config says so.
  if ((p.gram_count() > 0) != (c.config.model.linear_chars == Switch::on))
    throw Error(path + ": model file is corrupted (model.linear_chars does not match its character n-grams)");
  p.text = c.config.model.linear_text;
  return p;
}

}  // namespace

std::vector<const HanParams*> Classifier::members() const {
  std::vector<const HanParams*> out{&params};
  for (const HanParams& m : more_members) out.push_back(&m);
  return out;
}

std::string member_tensor_prefix(int member, int members) {
  return members > 1 ? "member" + std::to_string(member) + "." : "";
}

void save_classifier(const std::string& path, const Classifier& c, const nlohmann::json& extra,
                     const std::vector<NamedTensor>& extra_tensors) {
  nlohmann::json header = extra;
  header["format"] = "han";
  header["config"] = config_to_json(c.config);
  header["labels"] = c.labels;
  header["vocabulary"] = c.vocab.joined();
  if (head_has_section(c.head)) header["head"] = head_to_json(c.head);
  const std::vector<const HanParams*> members = c.members();
  const int n = static_cast<int>(members.size());
  HAN_ASSERT(n == c.config.trainer.ensemble);
  // A model used in place holds some tensors only in its file: it is never saved again.
  for (const HanParams* m : members) HAN_ASSERT(m->embedding.stored.empty());
  HAN_ASSERT(c.linear.W_stored.empty() && c.linear.idf_stored.empty() && c.linear.pairs_stored.empty() &&
             c.linear.grams.buckets_stored.empty() && c.linear.grams.word_counts_stored.empty() &&
             c.linear.grams.word_grams_stored.empty());
  std::vector<NamedTensor> tensors;
  for (int k = 0; k < n; ++k) {
    const std::string prefix = member_tensor_prefix(k + 1, n);
    HanParams::fields(*members[k], [&](const std::string& name, const Matrix& m) {
      if (m.size() != 0) tensors.push_back({prefix + name, m});
    });
  }
  HAN_ASSERT(c.linear.empty() != c.config.model.linear_member);
  HAN_ASSERT(!c.config.model.linear_member || c.config.model.linear_weight != kAutoReal);  // chosen when it joined
  LinearMemberParams::fields(c.linear, [&](const std::string& name, const Matrix& m) {
    if (m.size() != 0) tensors.push_back({kLinearPrefix + name, m});
  });
  tensors.insert(tensors.end(), extra_tensors.begin(), extra_tensors.end());
  save_model_file(path, header, tensors);
}

std::string model_file_in(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) return path;
  const std::filesystem::path dir(path);
  if (std::filesystem::exists(dir / "model.han", ec)) return (dir / "model.han").string();
  if (std::filesystem::exists(dir / "checkpoint.han", ec) || std::filesystem::exists(dir / "members", ec))
    throw Error(path + ": a run folder without model.han: its training has not finished (continue it with han train "
                "--resume " + path + ")");
  throw Error(path + ": is a folder without model.han; give a model file or a run folder");
}

Classifier load_classifier(const std::string& given, std::vector<NamedTensor>* extra_tensors,
                           nlohmann::json* header, Residence residence) {
  const std::string path = model_file_in(given);
  ModelFileContents contents =
      load_model_file(path, residence == Residence::mapped ? KeepInPlace(kept_in_place) : KeepInPlace());
  const nlohmann::json& h = contents.header;
  if (!extra_tensors && h.contains("checkpoint")) throw Error(checkpoint_given_as_model(path));
  Classifier c;
  c.config = stored_config_from_json(header_field<nlohmann::json>(h, "config", path), path + " (config)");
  c.labels = stored_labels(h, path);
  const Task task = c.config.model.task;
  if (c.labels.empty() && task != Task::regression) throw Error(path + ": model file is corrupted (no labels)");
  c.head = head_from_json(h.contains("head") ? h["head"] : nlohmann::json(), task, c.labels.size(), path);
  const Index outputs = head_outputs(task, c.labels.size());
  std::size_t matched = 0;
  c.vocab = take_vocabulary(contents.tensors, h, path, matched);
  c.format_version = contents.version;
  const int members = c.config.trainer.ensemble;
  // Ensembles came with format 2: a format 1 file claiming one is damaged or hand-made.
  if (members > 1 && contents.version < 2)
    throw Error(path + ": model file is corrupted (an ensemble in a format 1 file)");
  // Shapes come from the config; every stored tensor must match one of them exactly. The
  // stored sizes are checked first, so a corrupt config cannot demand a huge allocation.
  double stored = 0;
  for (const NamedTensor& t : contents.tensors)
    if (!t.name.empty()) stored += static_cast<double>(t.stored.empty() ? t.value.size() : t.stored.rows() * t.stored.cols());
  // The member's features are the words, its stored word pairs (each pair is 2 numbers) and
  // its stored n-grams (with their word tables).
  double pairs = 0, grams = 0, gram_tables = 0;
  for (const NamedTensor& t : contents.tensors) {
    const double cols = static_cast<double>(t.stored.empty() ? t.value.cols() : t.stored.cols());
    if (t.name == kLinearPrefix + "pairs") pairs = cols;
    if (t.name == kLinearPrefix + "grams") grams = cols;
    if (t.name == kLinearPrefix + "word_gram_counts" || t.name == kLinearPrefix + "word_grams") gram_tables += cols;
  }
  const double features = static_cast<double>(c.vocab.size()) + pairs + grams;
  const double expected =
      members * han_parameter_count(c.config.model, static_cast<Index>(c.vocab.size()), outputs) +
      (c.config.model.linear_member ? (outputs + 1) * features + outputs + 2 * pairs + grams + gram_tables : 0.0);
  if (stored < expected) throw Error(path + ": model file is corrupted (tensors do not match its config)");
  c.params = take_member(contents.tensors, c, member_tensor_prefix(1, members), path, matched);
  for (int k = 2; k <= members; ++k)
    c.more_members.push_back(take_member(contents.tensors, c, member_tensor_prefix(k, members), path, matched));
  if (c.config.model.linear_member) {
    c.linear = take_linear_member(contents.tensors, c, path, matched);
    // Files from before model.linear_weight averaged the linear member in as one more member;
    // a file's own weight is never "auto" (it is chosen when the member joins).
    if (h["config"].contains("model") && h["config"]["model"].contains("linear_weight")) {
      if (c.config.model.linear_weight == kAutoReal)
        throw Error(path + ": model file is corrupted (model.linear_weight is \"auto\")");
    } else {
      c.config.model.linear_weight = equal_linear_weight(members);
    }
  }
  if (matched != contents.tensors.size()) {
    if (!extra_tensors) throw Error(path + ": model file is corrupted (unexpected tensors)");
    for (NamedTensor& t : contents.tensors)
      if (!t.name.empty()) extra_tensors->push_back(std::move(t));
  }
  if (header) *header = std::move(contents.header);
  return c;
}

}  // namespace han
