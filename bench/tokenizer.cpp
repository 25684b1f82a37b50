// Measures the tokenizer's throughput on real text: every document of a file (the "text"
// of each record of a .jsonl file, otherwise each line) is tokenized, the whole file
// several times; the best pass counts. Prints one JSON object with MB/s and tokens/s.
// Usage: han_bench_tokenizer FILE [passes=5] [max_sentences=0] [max_words=0]  (0 = no cap)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <fstream>
#include <string>
#include <vector>

#include "han/text/dataset.h"
#include "han/text/tokenizer.h"

using Clock = std::chrono::steady_clock;

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::vector<std::string> read_documents(const std::string& path) {
  std::vector<std::string> docs;
  if (ends_with(path, ".jsonl")) {
    for (han::Example& e : han::read_examples(path, han::DataFormat::jsonl, false)) docs.push_back(std::move(e.text));
    return docs;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open");
  for (std::string line; std::getline(in, line);) docs.push_back(line);
  return docs;
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE [passes=5] [max_sentences=0] [max_words=0]\n", argv[0]);
    return 2;
  }
  const std::string path = argv[1];
  const int passes = argc > 2 ? std::max(1, std::stoi(argv[2])) : 5;
  han::TokenizerOptions options;
  options.max_sentences = argc > 3 ? std::stoi(argv[3]) : 0;
  options.max_words = argc > 4 ? std::stoi(argv[4]) : 0;
  const han::Tokenizer tokenizer(options);
  const std::vector<std::string> docs = read_documents(path);

  double bytes = 0, non_ascii = 0;
  for (const std::string& d : docs) {
    bytes += static_cast<double>(d.size());
    non_ascii += static_cast<double>(std::count_if(d.begin(), d.end(), [](char c) { return c & 0x80; }));
  }
  double best = 1e300, tokens = 0;
  for (int pass = 0; pass < passes; ++pass) {
    double count = 0;
    const auto t = Clock::now();
    for (const std::string& d : docs) {
      for (const han::Sentence& s : tokenizer.tokenize(d)) count += static_cast<double>(s.size());
    }
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t).count());
    tokens = count;
  }
  std::printf("{\"file\": \"%s\", \"documents\": %zu, \"mb\": %.2f, \"non_ascii_bytes\": %.4f, "
              "\"tokens\": %.0f, \"seconds\": %.4f, \"mb_per_s\": %.1f, \"tokens_per_s\": %.0f}\n",
              path.c_str(), docs.size(), bytes / 1e6, non_ascii / std::max(bytes, 1.0), tokens, best,
              bytes / 1e6 / best, tokens / best);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "han_bench_tokenizer: %s\n", e.what());
  return 2;
}
