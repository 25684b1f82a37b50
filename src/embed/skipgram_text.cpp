#include "han/embed/skipgram_text.h"

#include <spdlog/spdlog.h>

#include "han/core/error.h"
#include "han/core/input_stream.h"
#include "han/core/line_reader.h"
#include "han/core/text_decoding.h"
#include "han/text/dataset.h"

namespace han {
namespace {

// One document per line, read as a stream (only the current line is held).
void add_plain_text(SkipGramCorpusBuilder& builder, const std::string& path, const Tokenizer& tokenizer,
                    TextEncoding encoding) {
  InputStream in(path);
  LineReader reader(in, kMaxLineBytes, /*cr_ends_line=*/true);
  TextDecoder decoder(encoding);
  std::string line;
  while (reader.next(line)) {
    decoder.decode(line);
    builder.add(tokenizer.tokenize(line));
  }
  for (const std::string& w : decoder.warnings(input_name(path))) spdlog::warn("{}", w);
}

std::string joined(const std::vector<std::string>& files) {
  std::string out;
  for (const std::string& f : files) out += (out.empty() ? "" : ", ") + f;
  return out;
}

}  // namespace

SkipGramCorpus read_skipgram_text(const Config& cfg, const std::vector<std::string>& plain_files) {
  // The config's rules (lowercase, tokenizer.version), without the caps.
  TokenizerOptions rules = tokenizer_options(cfg.tokenizer);
  rules.max_sentences = rules.max_words = 0;
  const Tokenizer tokenizer(rules);
  SkipGramCorpusBuilder builder;
  std::vector<std::string> sources;
  if (!cfg.data.train.empty()) {
    sources.push_back(cfg.data.train);
    visit_examples(cfg.data.train, cfg.data.format, label_options(cfg, false),
                   [&](Example&& e) { builder.add(tokenizer.tokenize(e.text)); });
  }
  std::vector<std::string> plain = plain_files;
  if (!cfg.data.unlabeled.empty()) plain.insert(plain.begin(), cfg.data.unlabeled);
  for (const std::string& path : plain) {
    sources.push_back(path);
    add_plain_text(builder, path, tokenizer, cfg.data.encoding);
  }
  if (sources.empty()) throw Error("embed: no text to learn from (set data.train or data.unlabeled, or give --input)");
  if (builder.documents() == 0) throw Error(joined(sources) + ": no words to learn vectors from");
  SkipGramCorpus corpus = builder.build(cfg.embed.min_count);
  if (corpus.words.empty())
    throw Error("embed.min_count: no word occurs " + std::to_string(cfg.embed.min_count) + " times or more in " +
                joined(sources));
  spdlog::info("embed: {} documents, {} words, vocabulary {} (words seen >= {} times)", corpus.documents(),
               corpus.tokens.size(), corpus.words.size(), cfg.embed.min_count);
  return corpus;
}

}  // namespace han
