#pragma once
// Pretrained word vectors (word2vec/GloVe text format) read into an embedding table.
#include <cstddef>
#include <string>

#include "han/core/types.h"
#include "han/text/vocab.h"

namespace han {

// Overwrites the columns of `table` (E, V) for vocabulary words found in a text file of
// "word v1 v2 ..." lines (an optional "count dim" first line). Returns how many were found.
// A vector of the wrong size is an error naming file:line.
std::size_t load_pretrained_vectors(Matrix& table, const Vocab& vocab, const std::string& path);

}  // namespace han
