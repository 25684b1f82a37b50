#pragma once
// The text skip-gram vectors are trained on, read from a config's files: data.train (any
// data.format; labels ignored, so unlabelled records are fine) and data.unlabeled, plus
// further plain-text files. A plain-text file holds one document per line (blank lines
// skipped; a line keeps its first kMaxLineBytes, as fasttext/tsv data lines do).
// Words come from han's tokenizer with tokenizer.lowercase, without the max_sentences /
// max_words caps (those shape the classifier's batches; vectors learn from all the text).
#include <string>
#include <vector>

#include "han/core/config.h"
#include "han/embed/skipgram_corpus.h"

namespace han {

// Words seen fewer than embed.min_count times are dropped. No text, or no word frequent
// enough, is an error naming the files.
SkipGramCorpus read_skipgram_text(const Config& cfg, const std::vector<std::string>& plain_files = {});

}  // namespace han
