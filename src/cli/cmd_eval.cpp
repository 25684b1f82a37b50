// han eval --model FILE --data FILE [--data-format F] [--format text|json] [--threshold P]
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <cstdio>
#include <string>
#include <vector>

#include "commands.h"
#include "han/core/config_enums.h"
#include "han/infer/abstention.h"
#include "han/infer/calibration.h"
#include "han/infer/classifier.h"
#include "han/text/dataset.h"
#include "han/text/encoding.h"
#include "han/text/reading.h"
#include "han/core/error.h"
#include "han/core/json_text.h"
#include "han/core/number_text.h"
#include "han/infer/evaluation.h"
#include "logging.h"
#include "option_values.h"

namespace han::cli {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct EvalArgs {
  std::string model, data;
  std::string data_format;  // "": the model's data.format
  std::string format;       // output: text | json (or, deprecated, a data format)
  bool json = false;        // short for --format json
  double threshold = -1;  // single: abstain below it; multilabel: every label's; < 0: none / the model's
  int batch_size = 64;
  int threads = 0;
  std::string encoding = "auto";
  LogOptions log;
};

// --format named the data format before --data-format did: `--format tsv` still reads tsv
// (with a warning), and the output stays text.
void resolve_formats(EvalArgs& a) {
  if (a.format.empty() || a.format == "text" || a.format == "json") return;
  if (!a.data_format.empty())
    throw han::Error("--format " + a.format + " is a data format (deprecated spelling) and --data-format " +
                     a.data_format + " is given too; pass only --data-format");
  warn_deprecated("eval --format " + a.format + " is deprecated for the data format; use --data-format " + a.format);
  a.data_format = a.format;
  a.format.clear();
}

bool json_output(const EvalArgs& a) {
  if (a.json && a.format == "text") throw han::Error("--json and --format text disagree; pass one of them");
  return a.json || a.format == "json";
}

// The gold labels of the documents whose every label the model knows (indices below
// `known`), and those documents' columns of `logits`: calibration is measured on them.
LabelSets known_only(const LabelSets& gold, std::size_t known, const Matrix& logits, Matrix& kept) {
  LabelSets out;
  std::vector<Index> columns;
  for (std::size_t i = 0; i < gold.size(); ++i) {
    if (std::any_of(gold[i].begin(), gold[i].end(), [&](std::int32_t l) { return l >= static_cast<std::int32_t>(known); }))
      continue;
    out.push_back(gold[i]);
    columns.push_back(static_cast<Index>(i));
  }
  kept.resize(logits.rows(), static_cast<Index>(columns.size()));
  for (std::size_t k = 0; k < columns.size(); ++k) kept.col(static_cast<Index>(k)) = logits.col(columns[k]);
  return out;
}

// The model's answers on docs and, for a classifying model, how calibrated they are (from
// its logits, with and without its temperature; an ensemble's logits are the log of its
// members' mean probabilities).
Matrix score_documents(const Classifier& c, const Documents& docs, const EvalArgs& a,
                       const std::function<bool(Index)>& progress, nlohmann::json& calibration) {
  const Task task = c.head.task;
  OutputHead head = c.head;
  head.answers_logits = task != Task::regression;
  Predictor predictor(c.members(), c.config.model, a.threads, head, c.weighted_linear_member());
  predictor.on_progress(progress);
  const Matrix out = predictor.predict(docs, a.batch_size);
  if (task == Task::regression) return out;
  Matrix known_logits;
  const LabelSets known = known_only(gold_label_sets(task, docs), c.labels.size(), out, known_logits);
  if (!known.empty()) calibration = calibration_scores(c.head, known_logits, known).to_json();
  return head_answers(c.head, out);  // (an ensemble's: softmax(log mean / T), as it predicts)
}

// Labels the data has and the model does not: a row of probability 0 each (never
// answered, so every document with one counts as an error), and one warning line.
void add_extra_labels(const ExtraLabels& extra, const EvalArgs& a, std::size_t documents, Matrix& answers,
                      OutputHead& head, std::vector<std::string>& labels) {
  if (extra.names.empty()) return;
  std::string named;
  for (std::size_t k = 0; k < extra.names.size() && k < 5; ++k)
    named += (k ? ", " : "") + quote_excerpt(extra.names[k]) + " " + std::to_string(extra.documents[k]);
  if (extra.names.size() > 5) named += ", ... (" + std::to_string(extra.names.size()) + " labels)";
  spdlog::warn("{}: {} of {} documents have a label the model does not know ({}); each counts as an error", a.data,
               extra.total_documents, documents, named);
  const Index known = answers.rows(), all = known + static_cast<Index>(extra.names.size());
  answers.conservativeResize(all, answers.cols());
  answers.bottomRows(all - known).setZero();
  labels.insert(labels.end(), extra.names.begin(), extra.names.end());
  if (head.task == Task::multilabel) head.thresholds.resize(static_cast<std::size_t>(all), 2.0);  // never reached
}

// "calibration: temperature 1.52, ECE 0.0812 -> 0.0213 (15 bins), NLL 0.4100 -> 0.3500"
std::string calibration_line(const nlohmann::json& j) {
  const auto number = [&](const char* key) {
    return j.contains(key) && j[key].is_number() ? format_fixed(j[key].get<double>(), 4) : std::string("n/a");
  };
  std::string out = "calibration: temperature " + number("temperature") + ", ECE " + number("ece_before") + " -> " +
                    number("ece_after") + " (15 bins)";
  if (j.contains("nll_before")) out += ", NLL " + number("nll_before") + " -> " + number("nll_after");
  return out + "\n";
}

// --threshold: single-label models abstain below it; multi-label models answer every
// label reaching it; a regression model has no threshold.
OutputHead scoring_head(const Classifier& c, const EvalArgs& a) {
  OutputHead head = c.head;
  if (a.threshold < 0) return head;
  if (head.task == Task::regression)
    throw han::Error("--threshold: applies to single-label and multi-label models; " + a.model + " is a regression model");
  if (head.task == Task::multilabel) head.thresholds.assign(head.thresholds.size(), a.threshold);
  return head;
}

void run_eval(EvalArgs& a) {
  resolve_formats(a);
  setup_logging(a.log);
  const bool as_json = json_output(a);
  const Classifier c = load_classifier(a.model, nullptr, nullptr, Residence::mapped);
  const OutputHead head = scoring_head(c, a);
  // The data told apart by its content unless named: a model's data.format says how its
  // training data was written, not this file.
  const DataFormat format =
      a.data_format.empty() ? DataFormat::auto_detect : parse_enum<DataFormat>(a.data_format, "--data-format");
  const auto read_start = std::chrono::steady_clock::now();
  // Encoded as read: memory holds the documents' ids, never their text.
  ExtraLabels extra;
  LabelOptions options = label_options(c.config, true);
  options.encoding = parse_enum<TextEncoding>(a.encoding, "--encoding");
  const Documents docs = encode_file(a.data, format, options, c.tokenizer(), c.caps(), c.vocab, c.labels, &extra,
                                     "the model's", keeps_unknown_words(c.config.model));
  if (docs.empty()) throw han::Error(a.data + ": no documents to evaluate");
  spdlog::debug("{} documents read, tokenized and encoded in {:.2f} s", docs.size(), seconds_since(read_start));
  const auto start = std::chrono::steady_clock::now();  // the predictor's set-up counts as prediction
  DocumentProgress progress(show_progress(a.log), static_cast<std::int64_t>(docs.size()));
  nlohmann::json calibration;
  Matrix answers = score_documents(c, docs, a, [&progress](Index done) {
    progress.update(done);
    return true;
  }, calibration);
  progress.finish();
  std::vector<std::string> labels = c.labels;
  OutputHead scored_head = head;
  add_extra_labels(extra, a, docs.size(), answers, scored_head, labels);
  const TaskScores m = score_answers(scored_head, answers, docs);
  const double seconds = seconds_since(start);
  spdlog::debug("{} documents scored in {:.2f} s", docs.size(), seconds);
  const std::int64_t tokens = docs.total_tokens();
  nlohmann::json j = m.to_json(labels);
  std::string text = m.to_text(labels);
  if (!extra.names.empty()) {
    j["unknown_labels"] = nlohmann::json::object();
    for (std::size_t k = 0; k < extra.names.size(); ++k) j["unknown_labels"][extra.names[k]] = extra.documents[k];
    text += std::to_string(extra.total_documents) + " of " + std::to_string(docs.size()) +
            " documents have a label the model does not know; each counts as an error\n";
  }
  if (!calibration.is_null()) {
    j["calibration"] = calibration;
    text += calibration_line(calibration);
  }
  if (head.task == Task::multilabel && a.threshold >= 0) {
    j["threshold"] = a.threshold;
    text += fmt::format("threshold: {} for every label (--threshold; the model's own are not used)\n", a.threshold);
  }
  if (head.task == Task::single && a.threshold >= 0) {
    const SelectiveScores selective = selective_scores(answers, gold_label_sets(Task::single, docs), a.threshold);
    j["abstain"] = selective.to_json();
    text += selective.to_text();
  }
  // Prediction speed (tokenizing excluded), for benchmarks.
  j["seconds"] = seconds;
  j["docs_per_second"] = static_cast<double>(docs.size()) / std::max(seconds, 1e-9);
  j["tokens_per_second"] = static_cast<double>(tokens) / std::max(seconds, 1e-9);
  if (as_json) text = j.dump() + "\n";
  std::fputs(text.c_str(), stdout);
  if (std::fflush(stdout) != 0) throw han::Error("cannot write output", 1);
}

}  // namespace

void add_eval_command(CLI::App& app) {
  auto args = std::make_shared<EvalArgs>();
  CLI::App* cmd = app.add_subcommand("eval", "Accuracy, macro-F1, per-class scores and confusion matrix on labelled data");
  add_model_option(cmd, args->model);
  cmd->add_option("-d,--data", args->data, "Labelled data file (or folder for --data-format folder)")
      ->required()
      ->type_name("FILE");
  cmd->add_option("--data-format", args->data_format, "Data format (default: auto, told from the content)")
      ->check(one_of(enum_names<DataFormat>()));
  const std::vector<std::string> data_formats = enum_names<DataFormat>();
  const CLI::Validator output_formats = one_of({"text", "json"});
  cmd->add_option("--format", args->format, "Output: text (tables) or json (one object)")
      ->check(CLI::Validator(
          [data_formats, output_formats](std::string& value) {
            const bool data_format = std::find(data_formats.begin(), data_formats.end(), value) != data_formats.end();
            return data_format ? std::string() : output_formats(value);  // a data format: the deprecated spelling
          },
          ""))
      ->type_name("{text,json}");
  cmd->add_flag("--json", args->json, "Same as --format json");
  cmd->add_option("--threshold", args->threshold,
                  "Single-label models: abstain below P (coverage and accuracy on the answered); "
                  "multi-label models: P for every label (default: the model's thresholds)")
      ->check(in_range(0.0, 1.0))
      ->type_name("P");
  cmd->add_option("-b,--batch-size", args->batch_size, "Documents per batch")->default_val(64)->check(in_range(1, 100000));
  cmd->add_option("-t,--threads", args->threads, "Threads (0 = all cores)")->default_val(0)->check(in_range(0, 1024));
  add_encoding_option(*cmd, args->encoding, "the data file's");
  add_log_options(*cmd, args->log);
  cmd->callback([args] { run_eval(*args); });
}

}  // namespace han::cli
