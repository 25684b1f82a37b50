#include "predict_output.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <numeric>

#include "han/core/error.h"
#include "han/core/json_text.h"
#include "han/core/number_text.h"
#include "han/infer/abstention.h"
#include "han/infer/multilabel_metrics.h"
#include "han/study/html.h"

namespace han::cli {
namespace {

// A tsv field stays one field: a tab or line break in a path or message would shift the
// columns, so control characters become spaces.
std::string tsv_field(std::string s) {
  std::replace_if(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7F; }, ' ');
  return s;
}

// An ensemble's weights are its members' mean: "members" says over how many. Each
// sentence's "words" are [word, weight] pairs as the model read them; "spans" are where
// each came from in the document's text ([begin, end) in bytes) and "written" the words as
// written there.
nlohmann::ordered_json explanation_json(const PredictItem& item, const Explanation& e, int members) {
  const TokenizedText& words = item.words;
  const bool spans = item.spans.sentences.size() == words.size();
  nlohmann::ordered_json sentences = nlohmann::ordered_json::array();
  for (std::size_t s = 0; s < e.sentence_weights.size(); ++s) {
    nlohmann::ordered_json ws = nlohmann::ordered_json::array();
    for (std::size_t w = 0; w < e.word_weights[s].size(); ++w) ws.push_back({words[s][w], e.word_weights[s][w]});
    nlohmann::ordered_json sentence = {{"weight", e.sentence_weights[s]}, {"words", ws}};
    if (spans && item.spans.sentences[s].size() == words[s].size()) {
      nlohmann::ordered_json at = nlohmann::ordered_json::array(), written = nlohmann::ordered_json::array();
      for (std::size_t w = 0; w < e.word_weights[s].size(); ++w) {
        const TokenSpan& span = item.spans.sentences[s][w];
        at.push_back({span.begin, span.end});
        written.push_back(span.end <= item.text.size() ? item.text.substr(span.begin, span.end - span.begin) : "");
      }
      sentence["spans"] = std::move(at);
      sentence["written"] = std::move(written);
      if (s < item.spans.cut.size() && item.spans.cut[s]) sentence["cut"] = true;
    }
    sentences.push_back(std::move(sentence));
  }
  nlohmann::ordered_json out;
  if (members > 1) out["members"] = members;
  out["sentences"] = std::move(sentences);
  if (spans && item.spans.truncated) out["truncated"] = true;
  return out;
}

// The names of the member's listed features: words and word pairs.
std::vector<std::string> member_word_names(const MemberExplanation& m, const Classifier& c) {
  std::vector<std::string> names;
  const LinearFeatureNamer name(*c.linear_member(), c.vocab);
  for (const MemberContribution& f : m.words) names.push_back(name(f.word));
  return names;
}

// The row's "linear_member": the member's share, each part's own answer for the label it
// explains (single, multilabel: the most probable one) and the member's words with their
// contributions, [word, weight x feature], the largest first.
nlohmann::ordered_json member_json(const MemberExplanation& m, const Classifier& c) {
  nlohmann::ordered_json out;
  out["share"] = m.share;
  const bool regression = c.head.task == Task::regression;
  if (!regression) out["label"] = c.labels[static_cast<std::size_t>(m.label)];
  out[regression ? "han_value" : "han_probability"] = m.han;
  out[regression ? "member_value" : "member_probability"] = m.member;
  nlohmann::ordered_json words = nlohmann::ordered_json::array();
  const std::vector<std::string> names = member_word_names(m, c);
  for (std::size_t i = 0; i < names.size(); ++i) words.push_back({names[i], m.words[i].value});
  out["words"] = std::move(words);
  return out;
}

// The html legend's note on where the weights come from: the HAN members' mean, and the
// linear member's part beside it.
std::string attention_source(const Classifier& c) {
  const int members = c.config.trainer.ensemble;
  std::string out;
  if (members > 1)
    out = " The HAN is an ensemble of " + std::to_string(members) +
          ": its probabilities and its attention weights are the mean over its members.";
  if (c.linear_member()) {
    const double w = c.weighted_linear_member().weight;
    const bool regression = c.head.task == Task::regression;
    out += " The model blends the HAN (weight " + format_fixed(1 - w, 2) + ") with a TF-IDF linear member (weight " +
           format_fixed(w, 2) + "): the shading is the HAN's part of each answer. Under each document, the green box "
           "gives each part's own answer and the member's words that weighed most: weight times TF-IDF feature, " +
           (regression ? std::string("in target units.") : std::string("in the member's logit for the label."));
  }
  return out;
}

// "path" for a document file; "document 7" (its id) for a line, after its source if named.
std::string html_heading(const PredictItem& item) {
  if (item.id.is_null()) return item.path;
  const std::string id = item.id.is_string() ? item.id.get<std::string>() : item.id.dump();
  return (item.path.empty() ? "" : item.path + ": ") + "document " + id;
}

han::Error write_error() { return han::Error(std::string("cannot write output: ") + std::strerror(errno), 1); }

}  // namespace

PredictRows::PredictRows(RowLayout layout, const Classifier& classifier)
    : layout_(std::move(layout)), classifier_(classifier) {
  layout_.top_k = std::min(layout_.top_k, classifier_.labels.size());
  thresholds_ = classifier_.head.thresholds;
  if (layout_.threshold >= 0) thresholds_.assign(thresholds_.size(), layout_.threshold);
}

PredictOutput::PredictOutput(RowLayout layout, const Classifier& classifier, std::string model_path)
    : rows_(std::move(layout), classifier), classifier_(classifier), model_path_(std::move(model_path)) {}

void PredictOutput::write(std::vector<PredictItem>& items, const Matrix& probs, std::vector<Explanation>& explanations) {
  Index answered = 0;
  for (PredictItem& item : items) {
    Explanation none;
    TopK top;
    Explanation& explanation = item.error.empty() ? explanations[static_cast<std::size_t>(answered)] : none;
    if (item.error.empty()) {
      top = rows_.answer(probs.col(answered++));
      rows_.explain_answered(explanation.member, top);
    }
    if (rows_.layout().format == "html") add_html_section(item, top, explanation);
    else emit(rows_.layout().format == "json" ? rows_.json_row(item, top, explanation) : rows_.tsv_row(item, top));
  }
  if (std::fflush(stdout) != 0) throw write_error();
}

void PredictOutput::finish() {
  if (rows_.layout().format == "html") {
    const std::string page = html_page("han predictions: " + model_path_,
                                       attention_css(),
                                       "<h1>han predictions</h1><p class=\"legend\">model " + html_escape(model_path_) +
                                           ". Red bars: sentence attention; blue: word attention times the square root "
                                           "of its sentence's weight, relative to the strongest word." +
                                           attention_source(classifier_) + "</p>\n" + html_);
    emit(page, false);
  }
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) throw write_error();
}

PredictRows::TopK PredictRows::top_k(const Eigen::Ref<const Vector>& p) const {
  std::vector<Index> order(p.size());
  std::iota(order.begin(), order.end(), 0);
  const std::size_t k = std::min(layout_.top_k, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<long>(k), order.end(),
                    [&](Index x, Index y) { return p(x) > p(y) || (p(x) == p(y) && x < y); });
  TopK out;
  for (std::size_t i = 0; i < k; ++i) out.emplace_back(classifier_.labels[order[i]], p(order[i]));
  return out;
}

PredictRows::TopK PredictRows::answer(const Eigen::Ref<const Vector>& p) const {
  if (task() == Task::regression) return {{"", p(0)}};
  if (task() == Task::single) return top_k(p);
  std::vector<Index> answered = answered_labels(p, thresholds_);  // the most probable first
  if (answered.size() > layout_.top_k) answered.resize(layout_.top_k);  // -k
  TopK out;
  for (Index c : answered) out.emplace_back(classifier_.labels[c], p(c));
  return out;
}

void PredictRows::explain_answered(MemberExplanation& member, const TopK& top) const {
  if (!member.present() || task() != Task::multilabel || top.empty()) return;
  const auto at = std::find(classifier_.labels.begin(), classifier_.labels.end(), top[0].first);
  const Index label = static_cast<Index>(at - classifier_.labels.begin());
  if (label != member.label) explain_label(member, classifier_.linear, label, 1.0);
}

bool PredictRows::abstains(const TopK& top) const {
  return task() == Task::single && layout_.threshold >= 0 && !top.empty() && han::abstains(top[0].second, layout_.threshold);
}

std::string PredictRows::first_label(const TopK& top) const {
  return abstains(top) ? layout_.abstain_label : top[0].first;
}

// The answer's tsv fields: [answer] label1 prob1 ... labelK probK (single; the answer with
// --threshold); the labels and their
// probabilities, each joined by data.label_separator (multilabel); the number (regression).
std::vector<std::string> PredictRows::answer_fields(const TopK& top) const {
  std::vector<std::string> fields;
  if (task() == Task::regression) return {top.empty() ? "" : format_fixed(top[0].second, 4)};
  if (task() == Task::multilabel) {
    const std::string& sep = classifier_.config.data.label_separator;
    std::string labels, probs;
    for (std::size_t k = 0; k < top.size(); ++k) {
      labels += (k ? sep : "") + top[k].first;
      probs += (k ? sep : "") + format_fixed(top[k].second, 4);
    }
    return {labels, probs};
  }
  // With --threshold the answer (a label, or the abstain label, which has no probability)
  // comes first, then the ranking, so every probability stands beside its own label.
  if (layout_.threshold >= 0) fields.push_back(top.empty() ? "" : first_label(top));
  for (std::size_t k = 0; k < layout_.top_k; ++k) {
    fields.push_back(k < top.size() ? top[k].first : "");
    fields.push_back(k < top.size() ? format_fixed(top[k].second, 4) : "");
  }
  return fields;
}

// [path] answer [gold] [error]: the same fields on every row, empty where a row has
// nothing to say (an error row has no labels).
std::string PredictRows::tsv_row(const PredictItem& item, const TopK& top) const {
  std::vector<std::string> fields;
  if (layout_.path) fields.push_back(tsv_field(item.path));
  for (std::string& f : answer_fields(top)) fields.push_back(tsv_field(std::move(f)));
  if (layout_.gold) fields.push_back(item.gold);
  if (layout_.error) fields.push_back(tsv_field(item.error));
  std::string row;
  for (std::size_t i = 0; i < fields.size(); ++i) row += (i ? "\t" : "") + fields[i];
  return row;
}

nlohmann::ordered_json PredictRows::json_object(const PredictItem& item, const TopK& top,
                                                const Explanation& explanation) const {
  nlohmann::ordered_json j;  // keys in reading order: path, id, label, probability, ...
  if (layout_.path) j["path"] = item.path;
  if (!item.id.is_null()) j["id"] = item.id;
  if (!item.error.empty()) {
    j["error"] = item.error;
    return j;
  }
  if (task() == Task::regression) {
    j["value"] = top[0].second;
  } else {
    const char* key = task() == Task::multilabel ? "labels" : "top_k";
    if (task() == Task::single) {
      j["label"] = first_label(top);
      j["probability"] = abstains(top) ? nlohmann::ordered_json() : nlohmann::ordered_json(top[0].second);
      if (abstains(top)) j["abstained"] = true;
    }
    j[key] = nlohmann::ordered_json::array();
    for (const auto& [label, p] : top) j[key].push_back({{"label", label}, {"probability", p}});
  }
  if (item.has_gold) j["gold"] = item.gold;
  if (layout_.explain) {
    j["attention"] = explanation_json(item, explanation, classifier_.config.trainer.ensemble);
    if (explanation.member.present()) {
      MemberExplanation member = explanation.member;  // (a copy: han serve's rows are const)
      explain_answered(member, top);
      j["linear_member"] = member_json(member, classifier_);
    }
  }
  return j;
}

std::string PredictRows::json_row(const PredictItem& item, const TopK& top, const Explanation& explanation) const {
  return dump_one_line(json_object(item, top, explanation));
}

void PredictOutput::add_html_section(PredictItem& item, const TopK& top, Explanation& explanation) {
  if (!item.error.empty()) {
    html_ += "<section class=\"doc\"><h2>" + html_escape(html_heading(item)) + "</h2><p class=\"legend\">not read: " +
             html_escape(item.error) + "</p></section>\n";
    return;
  }
  AttentionView v;
  v.heading = html_heading(item);
  v.top_k = top;
  if (classifier_.head.task == Task::regression && !top.empty()) v.top_k[0].first = "predicted";
  if (rows_.abstains(top)) v.top_k[0].first = rows_.layout().abstain_label + " (best: " + top[0].first + ")";
  v.gold = item.gold;
  v.words = std::move(item.words);
  v.text = std::move(item.text);
  v.spans = std::move(item.spans);
  if (explanation.member.present()) {
    if (classifier_.head.task != Task::regression) v.member_label = classifier_.labels[static_cast<std::size_t>(explanation.member.label)];
    v.member_words = member_word_names(explanation.member, classifier_);
  }
  v.explanation = std::move(explanation);
  html_ += attention_section(v);
}

void PredictOutput::emit(const std::string& s, bool newline) {
  if (std::fwrite(s.data(), 1, s.size(), stdout) != s.size() || (newline && std::fputc('\n', stdout) == EOF))
    throw write_error();
}

}  // namespace han::cli
