#include "han/embed/word_vectors.h"

#include <charconv>
#include <fstream>
#include <sstream>

#include "han/core/error.h"
#include "han/core/io.h"

namespace han {

std::string word2vec_text(const WordVectors& v) {
  HAN_ASSERT(static_cast<Index>(v.words.size()) == v.vectors.cols());
  std::string out = std::to_string(v.words.size()) + " " + std::to_string(v.vectors.rows()) + "\n";
  char number[32];
  for (std::size_t i = 0; i < v.words.size(); ++i) {
    out += v.words[i];
    for (Index d = 0; d < v.vectors.rows(); ++d) {
      const auto end = std::to_chars(number, number + sizeof number, v.vectors(d, static_cast<Index>(i))).ptr;
      out += ' ';
      out.append(number, end);
    }
    out += '\n';
  }
  return out;
}

void save_word_vectors(const std::string& path, const WordVectors& v) { write_file_atomically(path, word2vec_text(v)); }

std::vector<std::string> read_vector_words(const std::string& path) {
  require_regular_file(path);
  std::ifstream in(path);
  if (!in) throw Error(path + ": cannot open");
  std::vector<std::string> words;
  std::string line, word, second, third;
  for (std::size_t line_no = 1; std::getline(in, line); ++line_no) {
    std::istringstream fields(line);
    if (!(fields >> word)) continue;
    const bool header = line_no == 1 && (fields >> second) && !(fields >> third);
    if (!header) words.push_back(word);
  }
  return words;
}

}  // namespace han
