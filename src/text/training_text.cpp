#include "han/text/training_text.h"

#include <algorithm>
#include <unordered_map>

#include "han/core/error.h"
#include "han/core/malloc_tuning.h"
#include "han/text/encoding.h"
#include "han/text/vocab.h"

namespace han {
namespace {

// Label l of the answers becomes to[l].
void renumber(Answers& answers, const std::vector<std::int32_t>& to) {
  for (std::int32_t& l : answers.labels)
    if (l >= 0) l = to[l];
  for (std::int32_t& l : answers.label_set_ids) l = to[l];
}

// Labels are numbered as they first appear (by the collector, which also enforces
// kMaxLabels), then renumbered in sorted order.
class TrainingTextReader {
 public:
  explicit TrainingTextReader(const Tokenizer& tokenizer) : tokenizer_(tokenizer) {}

  void add(const Example& ex) {
    for (const Sentence& sentence : tokenizer_.tokenize(ex.text)) {
      if (sentence.empty()) continue;
      for (const std::string& w : sentence) text_.ids.push_back(word_id(w));
      text_.sentence_starts.push_back(text_.ids.size());
    }
    text_.document_starts.push_back(text_.sentence_starts.size() - 1);
    Answers& a = text_.answers;
    a.weights.push_back(static_cast<float>(ex.weight));
    a.targets.push_back(static_cast<float>(ex.target));
    const bool labelled = ex.has_label && !ex.has_target;
    a.labels.push_back(labelled && ex.labels.empty() ? labels_.id(ex, ex.label) : -1);
    if (labelled)
      for (const std::string& label : ex.labels) a.label_set_ids.push_back(labels_.id(ex, label));
    a.label_set_starts.push_back(a.label_set_ids.size());
  }

  TrainingText finish() {
    text_.labels = labels_.first_seen();
    renumber_labels(text_, labels_.sorted());
    return std::move(text_);
  }

 private:
  std::int32_t word_id(const std::string& w) {
    const auto [it, added] = ids_.emplace(w, static_cast<std::int32_t>(text_.words.size()));
    if (added) text_.words.push_back(w);
    return it->second;
  }

  const Tokenizer& tokenizer_;
  LabelCollector labels_;
  std::unordered_map<std::string, std::int32_t> ids_;
  TrainingText text_;
};

// Calls visit(first, count) for each sentence within `kept`, document by document, and
// end_document(d) after each.
template <class Sentence, class EndDocument>
void for_each_kept(const TrainingText& text, Caps kept, Sentence&& sentence, EndDocument&& end_document) {
  const std::uint64_t s_cap = kept.sentences > 0 ? static_cast<std::uint64_t>(kept.sentences) : UINT64_MAX;
  const std::uint64_t w_cap = kept.words > 0 ? static_cast<std::uint64_t>(kept.words) : UINT64_MAX;
  for (std::size_t d = 0; d < text.documents(); ++d) {
    const std::uint64_t first = text.document_starts[d], end = text.document_starts[d + 1];
    for (std::uint64_t s = first; s < end && s - first < s_cap; ++s) {
      const std::uint64_t begin = text.sentence_starts[s];
      sentence(text.ids.data() + begin, std::min(text.sentence_starts[s + 1] - begin, w_cap));
    }
    end_document(d);
  }
}

}  // namespace

TrainingText read_training_text(const std::string& path, DataFormat format, const LabelOptions& options,
                                const Tokenizer& tokenizer) {
  TrainingTextReader reader(tokenizer);
  visit_examples(path, format, options, [&](Example&& ex) { reader.add(ex); });
  return reader.finish();
}

void renumber_labels(TrainingText& text, const std::vector<std::string>& labels) {
  const LabelIndex index(labels);
  std::vector<std::int32_t> renumber(text.labels.size());
  for (std::size_t i = 0; i < renumber.size(); ++i) {
    renumber[i] = index.find(text.labels[i]);
    HAN_ASSERT(renumber[i] >= 0);
  }
  han::renumber(text.answers, renumber);
  text.labels = labels;
}

DocumentShapes shapes(const TrainingText& text) {
  DocumentShapes out(text.documents());
  for (std::size_t d = 0; d < text.documents(); ++d)
    for (std::uint64_t s = text.document_starts[d]; s < text.document_starts[d + 1]; ++s)
      out[d].push_back(static_cast<std::int32_t>(text.sentence_starts[s + 1] - text.sentence_starts[s]));
  return out;
}

std::vector<std::int64_t> kept_counts(const TrainingText& text, Caps kept) {
  std::vector<std::int64_t> counts(text.words.size(), 0);
  for_each_kept(
      text, kept,
      [&](const std::int32_t* ids, std::uint64_t n) {
        for (std::uint64_t i = 0; i < n; ++i) ++counts[ids[i]];
      },
      [](std::size_t) {});
  return counts;
}

Documents to_documents(TrainingText&& text, Caps kept, const std::vector<std::int32_t>& to_vocab,
                       std::size_t vocab_size, bool keep_unknown) {
  Documents docs(vocab_size);
  if (keep_unknown) docs.keep_unknown_words();
  std::uint64_t words = 0, sentences = 0;
  for_each_kept(
      text, kept, [&](const std::int32_t*, std::uint64_t n) { words += n, ++sentences; },
      [](std::size_t) {});
  docs.reserve(words, sentences, text.documents());
  std::vector<std::int32_t> mapped;
  std::vector<std::int32_t> label_set;
  const Answers& a = text.answers;
  // The provisional ids are read once, front to back: pages behind the reading position go
  // back to the kernel as the documents' ids grow, so the two never add up in memory.
  constexpr std::uint64_t kReleaseStep = std::uint64_t{1} << 20;  // ids
  std::uint64_t released = 0;
  for_each_kept(
      text, kept,
      [&](const std::int32_t* ids, std::uint64_t n) {
        mapped.resize(n);
        for (std::uint64_t i = 0; i < n; ++i) {
          mapped[i] = to_vocab[ids[i]];
          if (keep_unknown && mapped[i] == Vocab::kUnk) docs.add_unknown_word(text.words[ids[i]]);
        }
        docs.add_sentence(mapped.data(), mapped.size());
        const auto done = static_cast<std::uint64_t>(ids - text.ids.data());
        if (done >= released + kReleaseStep) {
          give_back_pages(text.ids.data() + released, (done - released) * sizeof(std::int32_t));
          released = done;
        }
      },
      [&](std::size_t d) {
        label_set.assign(a.label_set_ids.begin() + a.label_set_starts[d], a.label_set_ids.begin() + a.label_set_starts[d + 1]);
        docs.end_document(a.labels[d], label_set, a.targets[d], a.weights[d]);
      });
  text = TrainingText();
  return docs;
}

}  // namespace han
