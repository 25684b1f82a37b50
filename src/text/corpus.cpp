#include "han/text/corpus.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iterator>
#include <limits>
#include <tuple>
#include <unordered_set>

#include "han/core/error.h"
#include "han/core/input_stream.h"
#include "han/text/caps.h"
#include "han/text/class_weights.h"
#include "han/text/encoding.h"
#include "han/text/reading.h"
#include "han/text/token_cache.h"
#include "han/text/training_text.h"
#include "han/core/json_text.h"

namespace han {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// One split of dev/test read, tokenized and encoded one example at a time; --log-level
// debug says how long it took.
Documents read_split(const std::string& path, const char* split, const Config& cfg, const Tokenizer& tokenizer,
                     const Vocab& vocab, const std::vector<std::string>& labels) {
  spdlog::debug("reading {} data from {}", split, path);
  const auto start = Clock::now();
  // The labels are the run's (with trainer.init: those it trains, not necessarily its parent's).
  Documents docs = encode_file(path, cfg.data.format, label_options(cfg, true), tokenizer, document_caps(cfg.tokenizer),
                               vocab, labels, nullptr, "the run's", keeps_unknown_words(cfg.model));
  spdlog::debug("{} data: {} documents read and encoded in {:.2f} s", split, docs.size(), seconds_since(start));
  return docs;
}

// A pipe or stdin is read once: naming it for two splits would leave the second empty.
void refuse_stream_read_twice(const Config& cfg) {
  const std::tuple<const char*, const std::string*> splits[] = {
      {"data.train", &cfg.data.train}, {"data.dev", &cfg.data.dev}, {"data.test", &cfg.data.test}};
  for (std::size_t i = 0; i < std::size(splits); ++i)
    for (std::size_t j = 0; j < i; ++j) {
      const std::string& path = *std::get<1>(splits[i]);
      const std::string& other = *std::get<1>(splits[j]);
      if (path.empty() || other.empty() || (!is_stream_path(path) && !is_stream_path(other))) continue;
      if (!same_input(path, other)) continue;
      throw Error(std::string(std::get<0>(splits[i])) + ": " + quote_excerpt(path) + " is also " + std::get<0>(splits[j]) +
                  ", and a stream (stdin, a pipe) can be read only once");
    }
}

// Pretrained words join after the training words, in the order given, while there is room.
Vocab with_vector_words(const Vocab& vocab, const std::vector<std::string>& vector_words, int max_size) {
  std::vector<std::string> words = vocab.words();
  std::unordered_set<std::string> known(words.begin(), words.end());
  for (const std::string& w : vector_words) {
    if (words.size() >= static_cast<std::size_t>(max_size)) break;
    if (known.insert(w).second) words.push_back(w);
  }
  return Vocab::from_words(std::move(words));
}

// A trained model's vocabulary first (its ids keep their embeddings), then, if asked, the
// training words it lacks; its labels when they include every training label.
void adopt_base(Corpus& corpus, const CorpusBase& base, int max_vocab) {
  const Vocab model_vocab = Vocab::from_words(base.words);
  const std::vector<std::string>& train_words = corpus.vocab.words();
  const auto lacking = std::count_if(train_words.begin() + 2, train_words.end(),  // after <pad>, <unk>
                                     [&](const std::string& w) { return model_vocab.id(w) == Vocab::kUnk; });
  corpus.vocab = base.extend_vocab ? with_vector_words(model_vocab, train_words, std::max<int>(max_vocab, base.words.size()))
                                   : model_vocab;
  if (base.extend_vocab)
    spdlog::info("vocabulary: the model's {} words, then {} new words of train with fresh embeddings",
                 base.words.size(), corpus.vocab.size() - base.words.size());
  else
    spdlog::info("vocabulary: the model's {} words kept; {} words of train it lacks read as <unk> "
                 "(trainer.extend_vocab=true adds them)", base.words.size(), lacking);
  const bool known = std::all_of(corpus.labels.begin(), corpus.labels.end(), [&](const std::string& l) {
    return std::find(base.labels.begin(), base.labels.end(), l) != base.labels.end();
  });
  if (known) corpus.labels = base.labels;
}

// The caps for the training text, "auto" ones chosen, with a line on what they keep.
CapChoice caps_for(const TrainingText& train, const TokenizerConfig& tokenizer) {
  if (tokenizer.max_sentences != kAutoCap && tokenizer.max_words != kAutoCap)
    return {tokenizer.max_sentences, tokenizer.max_words, std::numeric_limits<double>::quiet_NaN()};
  const CapChoice caps = choose_caps(shapes(train), tokenizer);
  const bool at_limit = caps.max_sentences == kAutoMaxSentences || caps.max_words == kAutoMaxWords;
  spdlog::info("caps: {} sentences x {} words{} keep {:.1f}% of the tokens of train", caps.max_sentences, caps.max_words,
               at_limit ? " (auto, at its limit)" : " (auto)", 100 * caps.kept_fraction);
  return caps;
}

// Reads data.train once, tokenized without caps when they are to be chosen from it or the
// linear member reads the whole text.
TrainingText read_train(const Config& cfg) {
  TokenizerOptions options = reading_options(cfg);
  if (cfg.tokenizer.max_sentences == kAutoCap || cfg.tokenizer.max_words == kAutoCap) options.max_sentences = options.max_words = 0;
  spdlog::debug("reading train data from {}", cfg.data.train);
  const auto start = Clock::now();
  TrainingText text = read_training_text(cfg.data.train, cfg.data.format, label_options(cfg, true),
                                         Tokenizer(options));
  spdlog::debug("train data: {} documents read and tokenized in {:.2f} s", text.documents(), seconds_since(start));
  if (text.documents() == 0) throw Error(cfg.data.train + ": the training set is empty");
  return text;
}

// The min_count of the vocabulary, an "auto" one chosen from `words`, with a line on it.
int min_count_for(const VocabBuilder& words, const TokenizerConfig& tokenizer) {
  if (tokenizer.min_count != kAutoMinCount) return tokenizer.min_count;
  const MinCountChoice choice = words.choose_min_count();
  spdlog::info("min_count: {} (auto): the words seen at least {} times hold {:.1f}% of the tokens of train",
               choice.min_count, choice.min_count, 100 * choice.kept_fraction);
  return choice.min_count;
}

// The vocabulary of the words `kept` (see load_corpus). Sets corpus.min_count and
// corpus.train_distinct_words (how many distinct words that is).
Vocab training_vocab(const TrainingText& text, Caps kept, Corpus& corpus, const TokenizerConfig& cfg) {
  const std::vector<std::int64_t> counts = kept_counts(text, kept);
  VocabBuilder builder;
  for (std::size_t i = 0; i < counts.size(); ++i)
    if (counts[i] > 0) builder.add(text.words[i], counts[i]);
  corpus.min_count = min_count_for(builder, cfg);
  corpus.train_distinct_words = builder.distinct_words();
  return builder.build(corpus.min_count, cfg.max_vocab);
}

// Each provisional word's id in `vocab` (kUnk when it is not there).
std::vector<std::int32_t> vocab_ids(const TrainingText& text, const Vocab& vocab) {
  std::vector<std::int32_t> ids(text.words.size());
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = vocab.id(text.words[i]);
  return ids;
}

// The corpus read from the text: vocabulary and labels from train, dev and test encoded
// with them. Class weights are not applied yet (a token cache stores the corpus without).
Corpus read_corpus(const Config& given, const std::vector<std::string>& vector_words, const CorpusBase* base) {
  Corpus corpus;
  {
    TrainingText train = read_train(given);
    if (given.model.task != Task::regression) corpus.labels = train.labels;
    const std::size_t least = given.model.task == Task::single ? 2 : given.model.task == Task::multilabel ? 1 : 0;
    if (corpus.labels.size() < least)
      throw Error(given.data.train + ": needs at least " + std::to_string(least) + " distinct labels, found " +
                  std::to_string(corpus.labels.size()));
    const CapChoice caps = caps_for(train, given.tokenizer);
    corpus.max_sentences = caps.max_sentences;
    corpus.max_words = caps.max_words;
    const Caps han_caps{corpus.max_sentences, corpus.max_words};
    // What the model keeps of the training text: all of it when the linear member reads the
    // whole text, else what the caps keep.
    const Caps kept = reads_whole_text(given.model) ? Caps{} : han_caps;
    corpus.vocab = training_vocab(train, kept, corpus, given.tokenizer);
    const std::size_t from_train = corpus.vocab.size();
    if (!vector_words.empty()) {
      corpus.vocab = with_vector_words(corpus.vocab, vector_words, given.tokenizer.max_vocab);
      spdlog::info("vocabulary: {} words from train, {} more from the pretrained vectors", from_train,
                   corpus.vocab.size() - from_train);
    }
    if (base) adopt_base(corpus, *base, given.tokenizer.max_vocab);
    if (corpus.labels != train.labels) renumber_labels(train, corpus.labels);
    const std::vector<std::int32_t> ids = vocab_ids(train, corpus.vocab);
    corpus.train = to_documents(std::move(train), kept, ids, corpus.vocab.size(), keeps_unknown_words(given.model));
    corpus.train.set_caps(han_caps);
  }  // the provisional ids are freed before dev and test are read
  const Config cfg = with_corpus_tokenizer(given, corpus);
  const Tokenizer tokenizer(reading_options(cfg));
  for (auto [path, docs, split] : {std::tuple{&cfg.data.dev, &corpus.dev, "dev"}, {&cfg.data.test, &corpus.test, "test"}}) {
    if (path->empty()) continue;
    *docs = read_split(*path, split, cfg, tokenizer, corpus.vocab, corpus.labels);
  }
  return corpus;
}

// The corpus from data.cache when it holds this data read with these settings; else read
// from the text and written there for the next run (a cache that cannot be written costs
// a warning, not the run).
Corpus cached_corpus(const Config& cfg, const std::vector<std::string>& vector_words, const CorpusBase* base) {
  const auto start = Clock::now();
  const std::uint64_t fingerprint = corpus_fingerprint(cfg, vector_words, base);
  if (std::optional<Corpus> cached = read_token_cache(cfg.data.cache, fingerprint, keeps_unknown_words(cfg.model))) {
    spdlog::info("token cache {}: {} documents mapped in {:.2f} s", cfg.data.cache,
                 cached->train.size() + cached->dev.size() + cached->test.size(), seconds_since(start));
    cached->cache = Corpus::CacheUse::mapped;
    return std::move(*cached);
  }
  Corpus corpus = read_corpus(cfg, vector_words, base);
  try {
    corpus.cache_checksum = write_token_cache(cfg.data.cache, corpus, fingerprint);
    corpus.cache = Corpus::CacheUse::written;
    spdlog::info("token cache {} written", cfg.data.cache);
  } catch (const Error& e) {
    corpus.cache = Corpus::CacheUse::unwritten;
    spdlog::warn("token cache not written: {}", e.what());
  }
  return corpus;
}

}  // namespace

std::vector<double> label_rates(const Corpus& corpus) {
  std::vector<double> rates(corpus.labels.size(), 0.0);
  for (const DocumentView d : corpus.train)
    for (std::int32_t c : d.label_set) rates[static_cast<std::size_t>(c)] += 1.0 / static_cast<double>(corpus.train.size());
  return rates;
}

Config with_corpus_tokenizer(Config cfg, const Corpus& corpus) {
  HAN_ASSERT(corpus.max_sentences >= 1 && corpus.max_words >= 1 && corpus.min_count >= 1);  // never "auto" in a model
  cfg.tokenizer.max_sentences = corpus.max_sentences;
  cfg.tokenizer.max_words = corpus.max_words;
  cfg.tokenizer.min_count = corpus.min_count;
  return cfg;
}

Corpus load_corpus(const Config& given, const std::vector<std::string>& vector_words, const CorpusBase* base) {
  if (given.data.train.empty()) throw Error("data.train: no training file given");
  refuse_stream_read_twice(given);
  Corpus corpus = given.data.cache.empty() ? read_corpus(given, vector_words, base) : cached_corpus(given, vector_words, base);
  if (given.model.task == Task::regression) corpus.targets = target_scale(corpus.train, given.data.train);
  const std::vector<double> weights = class_weights(given.loss.class_weights, corpus.labels, corpus.train);
  apply_class_weights(weights, corpus.train);
  const std::string answers =
      given.model.task == Task::regression
          ? fmt::format("targets of mean {:.4g} and sd {:.4g} (losses are on standardised targets, (target - "
                        "mean) / sd; RMSE and MAE are in target units)",
                        corpus.targets.mean, corpus.targets.sd)
          : std::to_string(corpus.labels.size()) + " labels";
  spdlog::info("corpus: {} train / {} dev / {} test documents, {}, vocabulary {} (of {} distinct words)",
               corpus.train.size(), corpus.dev.size(), corpus.test.size(), answers, corpus.vocab.size(),
               corpus.train_distinct_words);
  if (given.loss.class_weights.mode != ClassWeights::Mode::none && given.model.task == Task::single)
    spdlog::info("class weights (loss.class_weights {}): {}",
                 given.loss.class_weights.mode == ClassWeights::Mode::balanced ? "balanced" : "as given",
                 describe_class_weights(corpus.labels, weights));
  return corpus;
}

}  // namespace han
