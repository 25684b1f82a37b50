// han info --model FILE [--json]
#include <algorithm>
#include <cstdio>
#include <fmt/format.h>
#include <string>
#include <utility>
#include <vector>

#include "commands.h"
#include "option_values.h"
#include "han/core/number_text.h"
#include "han/core/text_table.h"
#include "han/infer/bag_words.h"
#include "han/infer/classifier.h"
#include "han/infer/model_file.h"
#include "han/nn/parameters.h"
#include "logging.h"
#include "model_info.h"

namespace han::cli {
namespace {

struct InfoArgs {
  std::string model;
  bool json = false;
};

// Dev scores as records hold them, in the order they are shown: each task's main score
// first, then macro-F1, then the others; with their names.
constexpr std::pair<const char*, const char*> kScoreNames[] = {
    {"dev_accuracy", "dev accuracy"},       {"dev_micro_f1", "dev micro-F1"},
    {"dev_rmse", "dev RMSE"},               {"dev_macro_f1", "dev macro-F1"},
    {"dev_mae", "dev MAE"},                 {"dev_subset_accuracy", "dev subset accuracy"},
    {"dev_hamming_loss", "dev Hamming loss"}, {"dev_precision_at_1", "dev precision at 1"},
    {"dev_recall_at_1", "dev recall at 1"}, {"dev_pearson", "dev Pearson"},
    {"dev_spearman", "dev Spearman"},       {"dev_rounded_accuracy", "dev rounded accuracy"}};

// "dev accuracy 0.8660, dev macro-F1 0.8658": the scores of `record` among the first
// `shown` of kScoreNames, in that order.
std::vector<std::string> dev_score_texts(const nlohmann::json& record, std::size_t shown = std::size(kScoreNames)) {
  std::vector<std::string> out;
  for (std::size_t k = 0; k < shown; ++k) {
    const auto& [key, name] = kScoreNames[k];
    if (record.contains(key) && record[key].is_number())
      out.push_back(std::string(name) + " " + format_fixed(record[key].get<double>(), 4));
  }
  return out;
}

std::string joined_texts(const std::vector<std::string>& parts) {
  std::string text;
  for (const std::string& p : parts) text += (text.empty() ? "" : ", ") + p;
  return text;
}

// An ensemble's members as the header records them: "seed 2, best epoch 3, dev accuracy
// 0.8620, dev macro-F1 0.8511" (the task's main dev score, then macro-F1 where there is one).
std::string member_text(const nlohmann::json& m) {
  const std::string text = "seed " + m.value("seed", nlohmann::json()).dump() + ", best epoch " +
                           m.value("best_epoch", nlohmann::json()).dump();
  const std::vector<std::string> scores = dev_score_texts(m, 4);
  return scores.empty() ? text + ", no dev scores" : text + ", " + joined_texts(scores);
}

// The trained record, read: "best epoch 4, dev accuracy 0.8660, dev macro-F1 0.8658"
// (members, the linear member and the scores of the model as it answers have rows of their own).
std::string trained_text(const nlohmann::json& t) {
  if (!t.is_object()) return t.dump();
  std::vector<std::string> parts;
  if (t.contains("best_epoch") && t["best_epoch"].is_number()) parts.push_back("best epoch " + t["best_epoch"].dump());
  for (std::string& score : dev_score_texts(t)) parts.push_back(std::move(score));
  return parts.empty() ? "(no record)" : joined_texts(parts);
}

// "LIBLINEAR, C 1024, 86226 word pairs, dev loss 0.2681, weight 0.80"
std::string linear_member_text(const nlohmann::json& m) {
  const nlohmann::json c = m.value("C", nlohmann::json());
  std::string text = m.value("solver", "") == "liblinear"
                         ? "LIBLINEAR, C " + (c.is_number() ? fmt::format("{:g}", c.get<double>()) : c.dump())
                         : "SGD, best epoch " + m.value("best_epoch", nlohmann::json()).dump() + " of " +
                               m.value("epochs", nlohmann::json()).dump();
  if (m.contains("pairs") && m["pairs"].is_number() && m["pairs"].get<double>() > 0)
    text += ", " + m["pairs"].dump() + " word pairs";
  if (m.contains("char_grams") && m["char_grams"].is_number() && m["char_grams"].get<double>() > 0)
    text += ", " + m["char_grams"].dump() + " character n-grams";
  if (m.contains("dev_loss") && m["dev_loss"].is_number())
    text += ", dev loss " + format_fixed(m["dev_loss"].get<double>(), 4);
  if (m.contains("weight") && m["weight"].is_number()) text += ", weight " + format_fixed(m["weight"].get<double>(), 2);
  return text;
}

std::vector<std::vector<std::string>> trained_rows(const nlohmann::json& trained, int members) {
  if (!trained.is_object()) return {{"trained", trained.dump()}};
  const bool member = trained.contains("linear_member") && trained["linear_member"].is_object();
  const bool answers = trained.contains("answers") && trained["answers"].is_object();
  std::vector<std::vector<std::string>> rows;
  if (members == 1 || !answers)  // an ensemble's record from before "answers" holds the ensemble's scores
    rows.push_back({"trained", trained_text(trained) + (member && members == 1 ? " (the HAN alone)" : "")});
  if (member) rows.push_back({"linear member", linear_member_text(trained["linear_member"])});
  if (answers) {
    const std::string what = std::string(members > 1 ? "the ensemble" : "the HAN") + (member ? " and its linear member" : "");
    rows.push_back({"dev, as it answers", trained_text(trained["answers"]) + " (" + what + ")"});
  }
  return rows;
}

std::vector<std::vector<std::string>> ensemble_rows(const nlohmann::json& trained, int members,
                                                   const WeightedLinearMember& linear) {
  const std::string blend = linear.params ? fmt::format(", then blend that with the linear member at weight {}",
                                                        format_fixed(linear.weight, 2))
                                          : "";
  std::vector<std::vector<std::string>> rows = {
      {"ensemble", std::to_string(members) + " models; predictions average their answers and attention" + blend}};
  const nlohmann::json list = trained.is_object() ? trained.value("members", nlohmann::json::array()) : nlohmann::json();
  for (std::size_t k = 0; list.is_array() && k < list.size(); ++k)
    if (list[k].is_object()) rows.push_back({"member " + std::to_string(k + 1), member_text(list[k])});
  return rows;
}

// "single", "single (temperature 1.5213)", "multilabel (thresholds 0.12..0.71, temperature 0.9120)",
// "regression (target mean 6.2, sd 3.1)".
std::string task_summary(const OutputHead& head) {
  std::vector<std::string> notes;
  if (head.task == Task::regression)
    notes.push_back("target mean " + format_fixed(head.scale.mean, 4) + ", sd " + format_fixed(head.scale.sd, 4));
  if (head.task == Task::multilabel && !head.thresholds.empty()) {
    const auto [lo, hi] = std::minmax_element(head.thresholds.begin(), head.thresholds.end());
    const std::string range = *lo == *hi ? format_fixed(*lo, 2) : format_fixed(*lo, 2) + ".." + format_fixed(*hi, 2);
    notes.push_back("thresholds " + range);
  }
  if (head.temperature != 1.0) notes.push_back("temperature " + format_fixed(head.temperature, 4));
  std::string out = to_string(head.task);
  for (std::size_t i = 0; i < notes.size(); ++i) out += (i ? ", " : " (") + notes[i];
  return notes.empty() ? out : out + ")";
}

// The dev record of calibration (train/calibration.h): "ECE 0.0812 -> 0.0213, NLL 0.4100 -> 0.3500, ...".
std::string dev_calibration_text(const nlohmann::json& c) {
  std::string out;
  const auto pair = [&](const char* name, const char* before, const char* after) {
    if (!c.contains(before) || !c[before].is_number() || !c[after].is_number()) return;
    out += std::string(out.empty() ? "" : ", ") + name + " " + format_fixed(c[before].get<double>(), 4) + " -> " +
           format_fixed(c[after].get<double>(), 4);
  };
  pair("ECE", "ece_before", "ece_after");
  pair("NLL", "nll_before", "nll_after");
  pair("micro-F1 (thresholds 0.5 -> tuned)", "micro_f1_untuned", "micro_f1_tuned");
  return "on dev: " + out;
}

// " (3 members)", " (3 members and a linear member weighing 0.70)", " (with a linear member
// weighing 0.50)" or "".
std::string parameters_note(int members, const WeightedLinearMember& linear) {
  const std::string weighing = linear.params ? "a linear member weighing " + format_fixed(linear.weight, 2) : "";
  if (members > 1) return " (" + std::to_string(members) + " members" + (linear.params ? " and " + weighing : "") + ")";
  return linear.params ? " (with " + weighing + ")" : "";
}

// "refund 1.32, remove 1.20, ..."
std::string leaning_text(const BagLeaning& b) {
  std::string out;
  for (const auto& [word, lean] : b.words) out += (out.empty() ? "" : ", ") + word + " " + format_fixed(lean, 2);
  return out.empty() ? "(none)" : out;
}

void run_info(InfoArgs& a) {
  a.model = model_file_in(a.model);  // a run folder: its model.han, named as such
  nlohmann::json header;
  const Classifier c = load_classifier(a.model, nullptr, &header);  // validates the whole file
  const nlohmann::json info = model_info_json(a.model, c, header);
  if (a.json) {
    std::printf("%s\n", info.dump().c_str());
    return;
  }
  const int members = c.config.trainer.ensemble;
  const Index parameters = model_parameters(c);
  const bool thresholds = c.head.task == Task::multilabel && c.head.thresholds.size() == c.labels.size();
  std::string labels;
  for (std::size_t i = 0; i < c.labels.size(); ++i) labels += (i ? ", " : "") + c.labels[i];
  std::vector<std::vector<std::string>> rows = {
      {"model", a.model},
      {"format version", std::to_string(c.format_version)},
      {"labels (" + std::to_string(c.labels.size()) + ")", labels},
      {"task", task_summary(c.head)},
      {"vocabulary", std::to_string(c.vocab.size()) + " words"},
      {"parameters", std::to_string(parameters) + parameters_note(members, c.weighted_linear_member())}};
  if (c.head.task == Task::regression) rows.erase(rows.begin() + 2);  // "labels (0)": it answers a number
  if (thresholds) {
    std::string listed;
    for (std::size_t k = 0; k < c.labels.size(); ++k)
      listed += (k ? ", " : "") + c.labels[k] + " " + format_fixed(c.head.thresholds[k], 2);
    rows.push_back({"thresholds", listed});
  }
  if (members > 1) {
    const auto more = ensemble_rows(header.value("trained", nlohmann::json()), members, c.weighted_linear_member());
    rows.insert(rows.end(), more.begin(), more.end());
  }
  if (header.contains("trained")) {
    const auto more = trained_rows(header["trained"], members);
    rows.insert(rows.end(), more.begin(), more.end());
  }
  if (header.contains("calibration") && header["calibration"].is_object())
    rows.push_back({"calibration", dev_calibration_text(header["calibration"])});
  if (!c.config.trainer.init.empty()) rows.push_back({"parent model", c.config.trainer.init});
  for (const BagLeaning& b : bag_top_words(c, kBagWordsShown)) rows.push_back({"bag words: " + b.answer, leaning_text(b)});
  std::fputs(text_table(rows, "   ").c_str(), stdout);
  std::printf("config\n%s\n", config_to_json(c.config).dump(2).c_str());
}

}  // namespace

void add_info_command(CLI::App& app) {
  auto args = std::make_shared<InfoArgs>();
  CLI::App* cmd = app.add_subcommand("info", "Show a model file's config, labels, vocabulary and size");
  add_model_option(cmd, args->model);
  cmd->add_flag("--json", args->json, "One JSON object");
  cmd->callback([args] { run_info(*args); });
}

}  // namespace han::cli
