#pragma once
// Pretrained word vectors read into an embedding table: word2vec/fastText .vec/GloVe text,
// or word2vec's binary format (told apart by its bytes), from any InputStream source (gzip,
// pipes). Streamed: memory holds one entry, not the file.
#include <cstddef>
#include <string>

#include "han/core/types.h"
#include "han/text/vocab.h"

namespace han {

// Overwrites the columns of `table` (E, V) for vocabulary words found in the file: text
// lines "word v1 v2 ..." (an optional "count dim" first line), or after such a line, binary
// entries "word " + dim float32s. Returns how many were found. A vector of the wrong size
// is an error naming file:line; a binary file that ends early names the entry.
std::size_t load_pretrained_vectors(Matrix& table, const Vocab& vocab, const std::string& path);

}  // namespace han
