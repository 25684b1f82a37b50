#pragma once
// Word vectors and their file: word2vec's text format, a "count dim" line and then one
// "word v1 ... vdim" line per word, as text/pretrained_vectors.h reads it.
#include <string>
#include <vector>

#include "han/core/types.h"

namespace han {

struct WordVectors {
  std::vector<std::string> words;
  Matrix vectors;  // (dim, words): column i is words[i]'s vector
};

// Each value is written as the shortest decimal that reads back as the same float, so the
// file gives back exactly the vectors that were trained.
std::string word2vec_text(const WordVectors& v);
void save_word_vectors(const std::string& path, const WordVectors& v);  // atomically

// The words of a word2vec/GloVe text file, in file order (a "count dim" first line skipped).
std::vector<std::string> read_vector_words(const std::string& path);

}  // namespace han
