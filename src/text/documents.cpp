#include "han/text/documents.h"

#include <algorithm>
#include <numeric>

#include "han/core/error.h"

namespace han {

WordIds SentenceList::operator[](std::size_t s) const { return docs_->sentence(first_ + s, max_words_); }

std::vector<std::vector<std::int32_t>> SentenceList::ids() const {
  std::vector<std::vector<std::int32_t>> out;
  for (const WordIds& s : *this) out.emplace_back(s.begin(), s.end());
  return out;
}

std::int64_t DocumentView::tokens() const {
  std::int64_t n = 0;
  for (const WordIds& s : sentences) n += static_cast<std::int64_t>(s.size());
  return n;
}

Documents::Documents(std::size_t vocab_size) {
  words_.narrow = vocab_size <= kMaxNarrowVocab;
  point_at_owned();
}

Documents::Documents(const std::vector<Document>& docs) : Documents() {
  for (const Document& d : docs)
    if (!d.unknown_words.empty()) keep_unknown_words();
  for (const Document& d : docs) push_back(d);
}

Documents::Documents(const WordArrays& words, Answers answers, std::shared_ptr<const void> keep, Caps caps)
    : mapping_(std::move(keep)), words_(words), answers_(std::move(answers)), caps_(caps) {
  HAN_ASSERT(answers_.label_set_starts.size() == answers_.labels.size() + 1);
  shapes_.reserve(size());
  for (std::size_t i = 0; i < size(); ++i) shapes_.push_back(measure(i));
}

Documents::Documents(const Documents& o)
    : narrow_words_(o.narrow_words_),
      wide_words_(o.wide_words_),
      sentence_starts_(o.sentence_starts_),
      document_starts_(o.document_starts_),
      mapping_(o.mapping_),
      words_(o.words_),
      answers_(o.answers_),
      keep_unknown_(o.keep_unknown_),
      unknown_(o.unknown_),
      shapes_(o.shapes_),
      caps_(o.caps_) {
  if (!mapping_) point_at_owned();
}

Documents& Documents::operator=(const Documents& o) {
  if (this != &o) *this = Documents(o);
  return *this;
}

// Moving a vector keeps its buffer, so the pointers stay valid.
Documents::Documents(Documents&& o) noexcept = default;
Documents& Documents::operator=(Documents&& o) noexcept = default;

void Documents::point_at_owned() {
  words_.words = words_.narrow ? static_cast<const void*>(narrow_words_.data()) : wide_words_.data();
  words_.word_count = words_.narrow ? narrow_words_.size() : wide_words_.size();
  words_.sentence_starts = sentence_starts_.data();
  words_.sentence_count = sentence_starts_.size() - 1;
  words_.document_starts = document_starts_.data();
}

void Documents::add_sentence(const std::int32_t* ids, std::size_t count) {
  HAN_ASSERT(!mapping_);
  if (count == 0) return;
  if (words_.narrow) {
    for (std::size_t i = 0; i < count; ++i) {
      HAN_ASSERT(ids[i] >= 0 && static_cast<std::size_t>(ids[i]) < kMaxNarrowVocab);
      narrow_words_.push_back(static_cast<std::uint16_t>(ids[i]));
    }
  } else {
    wide_words_.insert(wide_words_.end(), ids, ids + count);
  }
  sentence_starts_.push_back(words_.narrow ? narrow_words_.size() : wide_words_.size());
  point_at_owned();
}

void Documents::end_document(std::int32_t label, const std::vector<std::int32_t>& label_set, float target,
                             float weight) {
  HAN_ASSERT(!mapping_);
  document_starts_.push_back(sentence_starts_.size() - 1);
  answers_.labels.push_back(label);
  answers_.targets.push_back(target);
  answers_.weights.push_back(weight);
  answers_.label_set_ids.insert(answers_.label_set_ids.end(), label_set.begin(), label_set.end());
  answers_.label_set_starts.push_back(answers_.label_set_ids.size());
  if (keep_unknown_) unknown_.end_document();
  point_at_owned();
  shapes_.push_back(measure(size() - 1));
}

void Documents::keep_unknown_words() {
  HAN_ASSERT(empty());
  keep_unknown_ = true;
}

void Documents::add_unknown_word(std::string_view word) {
  if (keep_unknown_) unknown_.add(word);
}

void Documents::set_unknown_words(UnknownWords words) {
  HAN_ASSERT(words.documents() == size());
  keep_unknown_ = true;
  unknown_ = std::move(words);
}

void Documents::push_back(const Document& doc) {
  for (const std::vector<std::int32_t>& s : doc.sentences) add_sentence(s.data(), s.size());
  for (const std::string& w : doc.unknown_words) add_unknown_word(w);
  end_document(doc.label, doc.label_set, doc.target, doc.weight);
}

void Documents::reserve(std::uint64_t words, std::uint64_t sentences, std::size_t documents) {
  HAN_ASSERT(!mapping_);
  if (words_.narrow)
    narrow_words_.reserve(narrow_words_.size() + words);
  else
    wide_words_.reserve(wide_words_.size() + words);
  sentence_starts_.reserve(sentence_starts_.size() + sentences);
  document_starts_.reserve(document_starts_.size() + documents);
  for (auto* v : {&answers_.targets, &answers_.weights}) v->reserve(v->size() + documents);
  answers_.labels.reserve(answers_.labels.size() + documents);
  answers_.label_set_starts.reserve(answers_.label_set_starts.size() + documents);
  shapes_.reserve(shapes_.size() + documents);
  point_at_owned();
}

void Documents::truncate(std::size_t n) {
  if (n >= size()) return;
  answers_.labels.resize(n);
  answers_.targets.resize(n);
  answers_.weights.resize(n);
  answers_.label_set_starts.resize(n + 1);
  answers_.label_set_ids.resize(answers_.label_set_starts[n]);
  shapes_.resize(n);
  unknown_.truncate(n);
  const std::uint64_t sentences = words_.document_starts[n], words = words_.sentence_starts[sentences];
  if (mapping_) {  // the mapped arrays stay; only fewer of them are in use
    words_.sentence_count = sentences;
    words_.word_count = words;
    return;
  }
  document_starts_.resize(n + 1);
  sentence_starts_.resize(sentences + 1);
  narrow_words_.resize(words_.narrow ? words : 0);
  wide_words_.resize(words_.narrow ? 0 : words);
  point_at_owned();
}

WordIds Documents::sentence(std::uint64_t s, std::uint64_t max_words) const {
  const std::uint64_t begin = words_.sentence_starts[s], end = words_.sentence_starts[s + 1];
  const std::uint64_t n = max_words > 0 ? std::min(end - begin, max_words) : end - begin;
  const std::size_t width = words_.narrow ? sizeof(std::uint16_t) : sizeof(std::int32_t);
  return WordIds(static_cast<const char*>(words_.words) + begin * width, static_cast<std::size_t>(n), words_.narrow);
}

// The end of document i's sentences within the caps.
std::uint64_t Documents::capped_end(std::size_t i) const {
  const std::uint64_t first = words_.document_starts[i], end = words_.document_starts[i + 1];
  return caps_.sentences > 0 ? std::min(end, first + static_cast<std::uint64_t>(caps_.sentences)) : end;
}

DocumentView Documents::operator[](std::size_t i) const {
  const std::uint64_t* sets = answers_.label_set_starts.data();
  const std::uint64_t first = words_.document_starts[i];
  return DocumentView{answers_.labels[i],
                      IdRange{answers_.label_set_ids.data() + sets[i], static_cast<std::size_t>(sets[i + 1] - sets[i])},
                      answers_.targets[i], answers_.weights[i],
                      SentenceList(this, first, capped_end(i), static_cast<std::uint64_t>(caps_.words)),
                      SentenceList(this, first, words_.document_starts[i + 1]),
                      keep_unknown_ ? unknown_.of(i) : UnknownWordList()};
}

void Documents::set_caps(Caps caps) {
  HAN_ASSERT(caps.sentences >= 0 && caps.words >= 0);
  caps_ = caps;
  for (std::size_t i = 0; i < shapes_.size(); ++i) shapes_[i] = measure(i);
}

DocumentShape Documents::measure(std::size_t i) const {
  DocumentShape d;
  const std::uint64_t first = words_.document_starts[i], end = capped_end(i);
  d.sentences = static_cast<std::uint32_t>(end - first);
  for (std::uint64_t s = first; s < end; ++s) {
    std::uint64_t n = words_.sentence_starts[s + 1] - words_.sentence_starts[s];
    if (caps_.words > 0) n = std::min(n, static_cast<std::uint64_t>(caps_.words));
    d.longest = std::max(d.longest, static_cast<std::uint32_t>(n));
    d.tokens += n;
  }
  return d;
}

std::size_t Documents::bytes() const {
  const std::size_t width = words_.narrow ? sizeof(std::uint16_t) : sizeof(std::int32_t);
  return words_.word_count * width + (words_.sentence_count + 1 + size() + 1) * sizeof(std::uint64_t) +
         size() * (sizeof(std::int32_t) + 2 * sizeof(float) + sizeof(std::uint64_t)) +
         answers_.label_set_ids.size() * sizeof(std::int32_t) + shapes_.size() * sizeof(DocumentShape) + (keep_unknown_ ? unknown_.bytes() : 0);
}

std::vector<Index> every_document(const Documents& docs) {
  std::vector<Index> all(docs.size());
  std::iota(all.begin(), all.end(), Index{0});
  return all;
}

}  // namespace han
