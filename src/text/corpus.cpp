#include "han/text/corpus.h"

#include <spdlog/spdlog.h>

#include "han/core/error.h"

namespace han {

Corpus load_corpus(const Config& cfg) {
  if (cfg.data.train.empty()) throw Error("data.train: no training file given");
  const Tokenizer tokenizer(tokenizer_options(cfg.tokenizer));
  const std::vector<Example> train = read_examples(cfg.data.train, cfg.data.format, true);
  if (train.empty()) throw Error(cfg.data.train + ": the training set is empty");
  Corpus corpus;
  corpus.labels = collect_labels(train);
  if (corpus.labels.size() < 2)
    throw Error(cfg.data.train + ": needs at least 2 distinct labels, found " +
                std::to_string(corpus.labels.size()));
  VocabBuilder builder;
  for (const Example& e : train) builder.add(tokenizer.tokenize(e.text));
  corpus.vocab = builder.build(cfg.tokenizer.min_count, cfg.tokenizer.max_vocab);
  corpus.train = encode_all(train, tokenizer, corpus.vocab, corpus.labels);
  for (auto [path, docs] : {std::pair{&cfg.data.dev, &corpus.dev}, {&cfg.data.test, &corpus.test}}) {
    if (path->empty()) continue;
    *docs = encode_all(read_examples(*path, cfg.data.format, true), tokenizer, corpus.vocab,
                       corpus.labels);
  }
  spdlog::info("corpus: {} train / {} dev / {} test documents, {} labels, vocabulary {} (of {} distinct words)",
               corpus.train.size(), corpus.dev.size(), corpus.test.size(), corpus.labels.size(),
               corpus.vocab.size(), builder.distinct_words());
  return corpus;
}

}  // namespace han
