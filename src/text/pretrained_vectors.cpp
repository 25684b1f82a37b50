#include "han/text/pretrained_vectors.h"

#include <fstream>
#include <sstream>

#include "han/core/error.h"
#include "han/core/io.h"

namespace han {

std::size_t load_pretrained_vectors(Matrix& table, const Vocab& vocab, const std::string& path) {
  require_regular_file(path);
  std::ifstream in(path);
  if (!in) throw Error(path + ": cannot open");
  const Index dim = table.rows();
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
    table.col(id) = Eigen::Map<const Vector>(values.data(), dim);
    ++found;
  }
  return found;
}

}  // namespace han
