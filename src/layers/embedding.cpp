#include "han/layers/embedding.h"

#include <fstream>
#include <sstream>

#include "han/error.h"
#include "han/io.h"
#include "han/layers/linear.h"

namespace han {

EmbeddingParams embedding_init(Index vocab_size, Index dim, Rng& rng) {
  EmbeddingParams p;
  p.table.resize(dim, vocab_size);
  fill_uniform(p.table, -0.1, 0.1, rng);
  return p;
}

std::size_t load_pretrained_embeddings(EmbeddingParams& p, const Vocab& vocab,
                                       const std::string& path) {
  require_regular_file(path);
  std::ifstream in(path);
  if (!in) throw Error(path + ": cannot open");
  const Index dim = p.table.rows();
  std::string line;
  std::size_t line_no = 0, found = 0;
  std::vector<Scalar> values;
  while (std::getline(in, line)) {
    ++line_no;
    std::istringstream fields(line);
    std::string word;
    if (!(fields >> word)) continue;
    values.clear();
    double v;
    while (fields >> v) values.push_back(static_cast<Scalar>(v));
    if (!fields.eof()) throw Error(path + ":" + std::to_string(line_no) + ": expected numbers after the word");
    // word2vec's optional header line: "<count> <dim>".
    if (line_no == 1 && values.size() == 1) continue;
    if (static_cast<Index>(values.size()) != dim) {
      throw Error(path + ":" + std::to_string(line_no) + ": vector has " +
                  std::to_string(values.size()) + " values, model.embedding_dim is " +
                  std::to_string(dim));
    }
    const std::int32_t id = vocab.id(word);
    if (id == Vocab::kUnk && word != vocab.word(Vocab::kUnk)) continue;
    p.table.col(id) = Eigen::Map<const Vector>(values.data(), dim);
    ++found;
  }
  return found;
}

void embedding_forward(const EmbeddingParams& p, const std::vector<std::int32_t>& ids, Matrix& x) {
  x.resize(p.table.rows(), static_cast<Index>(ids.size()));
  for (std::size_t t = 0; t < ids.size(); ++t) x.col(static_cast<Index>(t)) = p.table.col(ids[t]);
}

void embedding_backward(const std::vector<std::int32_t>& ids, const Matrix& dx, EmbeddingParams& g) {
  for (std::size_t t = 0; t < ids.size(); ++t) g.table.col(ids[t]) += dx.col(static_cast<Index>(t));
}

}  // namespace han

