#pragma once
// The training split read in one pass, before its vocabulary exists: each word gets a
// provisional id where it first appears, so the text is tokenized once and never kept.
// Caps, word counts and the vocabulary are then worked out from the ids alone
// (corpus.cpp), and the ids mapped to the vocabulary's.
#include <cstdint>
#include <string>
#include <vector>

#include "han/text/caps.h"
#include "han/text/dataset.h"
#include "han/text/documents.h"

namespace han {

struct TrainingText {
  std::vector<std::string> words;                 // provisional id -> word
  std::vector<std::int32_t> ids;                  // every token, as provisional ids
  std::vector<std::uint64_t> sentence_starts{0};  // into ids
  std::vector<std::uint64_t> document_starts{0};  // into the sentences
  std::vector<std::string> labels;                // sorted; answers.labels index them
  Answers answers;

  std::size_t documents() const { return document_starts.size() - 1; }
};

// `tokenizer` applies the caps when they are fixed and the linear member reads only them;
// else it has none, "auto" caps are chosen from shapes(), and the caps are applied by
// `kept_counts` and `to_documents` or Documents::set_caps.
TrainingText read_training_text(const std::string& path, DataFormat format, const LabelOptions& options,
                                const Tokenizer& tokenizer);

// Renumbers the answers to index `labels`, which hold every label of the text (a
// trained model's, when training starts from it).
void renumber_labels(TrainingText& text, const std::vector<std::string>& labels);

// Each document's sentence lengths (for choosing "auto" caps).
DocumentShapes shapes(const TrainingText& text);

// How often each provisional word occurs within `kept` (Caps{}: every occurrence).
std::vector<std::int64_t> kept_counts(const TrainingText& text, Caps kept);

// The documents within `kept` (Caps{}: all of each), each provisional id replaced by
// to_vocab[id]. The text is used up (its memory given back as it is read). `keep_unknown`:
// the documents keep their words that read as <unk> (Documents::keep_unknown_words).
Documents to_documents(TrainingText&& text, Caps kept, const std::vector<std::int32_t>& to_vocab,
                       std::size_t vocab_size, bool keep_unknown = false);

}  // namespace han
