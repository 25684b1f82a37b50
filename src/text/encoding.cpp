#include "han/text/encoding.h"

#include <algorithm>

#include "han/core/error.h"
#include "han/core/json_text.h"

namespace han {

std::int32_t LabelCollector::id(const Example& example, const std::string& label) {
  if (const auto it = ids_.find(label); it != ids_.end()) return it->second;
  if (labels_.size() == kMaxLabels)
    throw Error(example.source + ": more than " + std::to_string(kMaxLabels) +
                " distinct labels (the limit); is the label column right?");
  ids_.emplace(label, static_cast<std::int32_t>(labels_.size()));
  labels_.push_back(label);
  return static_cast<std::int32_t>(labels_.size() - 1);
}

void LabelCollector::add(const Example& example) {
  if (!example.labels.empty()) {
    for (const std::string& label : example.labels) id(example, label);
  } else if (example.has_label) {
    id(example, example.label);
  }
}

std::vector<std::string> LabelCollector::sorted() const {
  std::vector<std::string> labels = labels_;
  std::sort(labels.begin(), labels.end());
  return labels;
}

std::vector<std::string> collect_labels(const std::vector<Example>& examples) {
  LabelCollector collector;
  for (const Example& ex : examples) collector.add(ex);
  return collector.sorted();
}

LabelIndex::LabelIndex(const std::vector<std::string>& labels, std::string owner)
    : names_(labels), owner_(std::move(owner)) {
  index_.reserve(labels.size());
  for (std::size_t i = 0; i < labels.size(); ++i) index_.emplace(labels[i], static_cast<std::int32_t>(i));
}

std::string LabelIndex::listed() const {
  constexpr std::size_t kShown = 10;
  std::string out;
  for (std::size_t i = 0; i < names_.size() && i < kShown; ++i) out += (i ? ", " : "") + quote_excerpt(names_[i]);
  if (names_.size() > kShown) out += ", ... (" + std::to_string(names_.size() - kShown) + " more)";
  return out;
}

std::int32_t LabelIndex::find(const std::string& label) const {
  const auto it = index_.find(label);
  return it == index_.end() ? -1 : it->second;
}

std::int32_t ExtraLabels::index(const std::string& label, std::size_t known) {
  const auto it = std::find(names.begin(), names.end(), label);
  if (it != names.end()) return static_cast<std::int32_t>(known + static_cast<std::size_t>(it - names.begin()));
  if (known + names.size() >= kMaxLabels)
    throw Error("more than " + std::to_string(kMaxLabels) + " distinct labels (the limit); is the label column right?");
  names.push_back(label);
  documents.push_back(0);
  return static_cast<std::int32_t>(known + names.size() - 1);
}

void set_answer(Document& doc, const Example& ex, const LabelIndex& labels, bool allow_unknown, ExtraLabels* extra) {
  doc.weight = static_cast<float>(ex.weight);
  doc.target = static_cast<float>(ex.target);
  if (!ex.has_label || ex.has_target) return;
  bool counted = false;
  const auto index = [&](const std::string& label) {
    std::int32_t i = labels.find(label);
    if (i < 0 && extra) {
      i = extra->index(label, labels.size());
      ++extra->documents[static_cast<std::size_t>(i) - labels.size()];
      if (!counted) ++extra->total_documents, counted = true;
    }
    if (i < 0 && !allow_unknown)
      throw Error(ex.source + ": label " + quote_excerpt(label) + " is not one of " + labels.owner() + " " +
                  std::to_string(labels.size()) + " labels (" + labels.listed() + ")");
    return i;
  };
  if (ex.labels.empty()) {
    doc.label = index(ex.label);
    return;
  }
  for (const std::string& label : ex.labels)
    if (const std::int32_t i = index(label); i >= 0) doc.label_set.push_back(i);
}

Document encode_words(const TokenizedText& text, const Vocab& vocab, std::int32_t label, bool keep_unknown) {
  Document doc;
  doc.label = label;
  doc.sentences.reserve(text.size());
  for (const Sentence& sentence : text) {
    if (sentence.empty()) continue;
    std::vector<std::int32_t> ids;
    ids.reserve(sentence.size());
    for (const std::string& w : sentence) {
      ids.push_back(vocab.id(w));
      if (keep_unknown && ids.back() == Vocab::kUnk) doc.unknown_words.push_back(w);
    }
    doc.sentences.push_back(std::move(ids));
  }
  return doc;
}

namespace {

Document encoded(const Example& example, const Tokenizer& tokenizer, const Vocab& vocab, const LabelIndex& labels,
                 bool allow_unknown_labels, ExtraLabels* extra = nullptr, bool keep_unknown = false) {
  Document doc = encode_words(tokenizer.tokenize(example.text), vocab, -1, keep_unknown);
  set_answer(doc, example, labels, allow_unknown_labels, extra);
  return doc;
}

}  // namespace

Document encode(const Example& example, const Tokenizer& tokenizer, const Vocab& vocab,
                const std::vector<std::string>& labels, bool allow_unknown_labels) {
  return encoded(example, tokenizer, vocab, LabelIndex(labels), allow_unknown_labels);
}

Documents encode_all(const std::vector<Example>& examples, const Tokenizer& tokenizer, Caps caps, const Vocab& vocab,
                     const std::vector<std::string>& labels, bool keep_unknown) {
  const LabelIndex index(labels);
  Documents docs(vocab.size());
  docs.set_caps(caps);
  if (keep_unknown) docs.keep_unknown_words();
  for (const Example& ex : examples) docs.push_back(encoded(ex, tokenizer, vocab, index, false, nullptr, keep_unknown));
  return docs;
}

Documents encode_file(const std::string& path, DataFormat format, const LabelOptions& options,
                      const Tokenizer& tokenizer, Caps caps, const Vocab& vocab, const std::vector<std::string>& labels,
                      ExtraLabels* extra, const std::string& owner, bool keep_unknown) {
  const LabelIndex index(labels, owner);
  Documents docs(vocab.size());
  docs.set_caps(caps);
  if (keep_unknown) docs.keep_unknown_words();
  visit_examples(path, format, options,
                 [&](Example&& ex) { docs.push_back(encoded(ex, tokenizer, vocab, index, false, extra, keep_unknown)); });
  return docs;
}

}  // namespace han
