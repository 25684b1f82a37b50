#pragma once
// What `han predict` prints for each document: tsv rows with a column count fixed for the
// whole run, one JSON object per line, or one html page; an unreadable record answered
// with --on-error skip gets an error row in its place.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "han/infer/classifier.h"
#include "han/infer/predictor.h"
#include "han/text/dataset.h"

namespace han::cli {

// One document to answer: where it came from, what the model read, and any gold label.
struct PredictItem {
  std::string path;           // the source, when rows name it (files, or several sources)
  nlohmann::ordered_json id;  // json "id": the record's own "id" or the line number; null for files
  std::string gold;
  bool has_gold = false;
  std::string error;  // set on a record that could not be read: "file:line: what is wrong"
  TokenizedText words;
  std::string text;  // the text as read, with the words' spans in it (html and --explain only)
  TextSpans spans;
  Document doc;
};

// Which columns and keys every row carries, decided before the first row.
struct RowLayout {
  std::string format = "tsv";  // tsv | json | html
  std::size_t top_k = 1;       // label/probability pairs per row (at most the label count); multilabel: at most
  bool path = false;           // rows name their source
  bool gold = false;           // jsonl input: a gold column, empty when a record has no label
  bool error = false;          // --on-error skip: an error column, empty on good rows
  bool explain = false;        // json: attention weights
  double threshold = -1;       // multilabel: every label's threshold; single: abstain below it (--threshold); < 0: the model's
  std::string abstain_label;   // single: answered in place of the top label when it abstains
};

// One document's answer as a row, for a layout fixed beforehand: what han predict prints
// and what han serve answers (so the two agree byte for byte).
class PredictRows {
 public:
  using TopK = std::vector<std::pair<std::string, double>>;
  PredictRows(RowLayout layout, const Classifier& classifier);
  const RowLayout& layout() const { return layout_; }
  // What a row answers: the top K labels (single), the labels over their thresholds
  // (multilabel), or ("", the number) (regression).
  TopK answer(const Eigen::Ref<const Vector>& p) const;
  // Single-label with --threshold: the top probability is below it.
  bool abstains(const TopK& top) const;
  // A multi-label row answers the labels over their thresholds, which need not include the
  // most probable: the member's side is then explained again for the first label answered.
  void explain_answered(MemberExplanation& member, const TopK& top) const;
  std::string tsv_row(const PredictItem& item, const TopK& top) const;
  nlohmann::ordered_json json_object(const PredictItem& item, const TopK& top, const Explanation& explanation) const;
  std::string json_row(const PredictItem& item, const TopK& top, const Explanation& explanation) const;

 private:
  TopK top_k(const Eigen::Ref<const Vector>& p) const;
  Task task() const { return classifier_.head.task; }
  // The label a row answers first: the top label, or the abstain label.
  std::string first_label(const TopK& top) const;
  std::vector<std::string> answer_fields(const TopK& top) const;

  RowLayout layout_;
  const Classifier& classifier_;
  std::vector<double> thresholds_;  // multilabel
};

class PredictOutput {
 public:
  PredictOutput(RowLayout layout, const Classifier& classifier, std::string model_path);
  // Writes one row per item, in order; `probs` and `explanations` hold the items without
  // an error, in order. Flushes stdout.
  void write(std::vector<PredictItem>& items, const Matrix& probs, std::vector<Explanation>& explanations);
  // Ends the output (the html page is written here) and flushes it.
  void finish();

 private:
  using TopK = PredictRows::TopK;
  void add_html_section(PredictItem& item, const TopK& top, Explanation& explanation);
  void emit(const std::string& s, bool newline = true);

  PredictRows rows_;
  const Classifier& classifier_;
  std::string model_path_;
  std::string html_;
};

}  // namespace han::cli
