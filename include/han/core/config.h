#pragma once
// The run configuration: eight JSON sections (data, tokenizer, model, batching,
// optimizer, trainer, embed, loss). Each section's fields are listed once, in a table in config.cpp,
// which drives parsing, validation, defaults, serialisation and the reference alike.
// Unknown keys, wrong types and out-of-range values are han::Error naming the key path.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "han/core/config_enums.h"

namespace han {

struct DataConfig {
  std::string train;  // required for training
  std::string dev;    // optional ("" = none): best-epoch selection falls back to train loss
  std::string test;   // optional
  DataFormat format = DataFormat::jsonl;
  std::string unlabeled;  // optional: plain text, one document per line, for skip-gram vectors
  std::string label_separator = ",";  // tsv, model.task multilabel: splits the label field
  std::string target_key = "target";  // jsonl, model.task regression: the key of the number
  std::string cache;  // optional token cache file (text/token_cache.h); "" = none
};

// The tokenizer's rules: 2 = Unicode (utf8proc); 1 = the rules before, kept for models
// trained with them (a stored config without tokenizer.version is one of those).
constexpr int kTokenizerVersion = 2;
// tokenizer.max_sentences / max_words "auto": caps chosen from the training data when the
// corpus is loaded (text/caps.h); a trained model always holds the chosen numbers.
constexpr int kAutoCap = 0;
// tokenizer.min_count "auto" (text/vocab.h, VocabBuilder::choose_min_count), held as 0 like the caps.
constexpr int kAutoMinCount = 0;
// A real setting's "auto" (model.linear_weight), held outside every range.
constexpr double kAutoReal = -1.0;

struct TokenizerConfig {
  bool lowercase = true;
  int max_sentences = 30;  // sentences kept per document; kAutoCap: chosen from the training data
  int max_words = 50;      // words kept per sentence; kAutoCap: chosen from the training data
  int min_count = kAutoMinCount;  // a word enters the vocabulary if seen >= min_count times; auto: 6 ("more than 5") or less on short texts
  int max_vocab = 50000;   // including PAD and UNK
  int version = kTokenizerVersion;
};

struct ModelConfig {
  int embedding_dim = 200;   // E
  int word_hidden = 50;      // H per direction, word level
  int sentence_hidden = 50;  // H per direction, sentence level
  int attention_dim = 100;   // A
  MaskMode mask = MaskMode::renorm;
  Pooling pooling = Pooling::attention;
  Bag bag = Bag::none;  // words: a bag-of-words linear term added to the logits
  // A TF-IDF linear model averaged in as one more member (nn/linear_member.h). On by default
  // since it lifts short texts most; files written before then, without the key, mean off.
  bool linear_member = true;
  // The linear member's share of the average; kAutoReal: chosen on dev (train/linear_weight.h).
  // A model file holds the share it predicts with.
  double linear_weight = kAutoReal;
  double dropout = 0.0;           // on the document vector
  double sentence_dropout = 0.0;  // on sentence vectors, between the word and sentence levels
  double embedding_dropout = 0.0; // on word embedding values
  double word_dropout = 0.0;      // a word reads as <unk> with this probability
  std::string embeddings;         // "", a word2vec/GloVe text file, or kPretrainEmbeddings
  // true: the table stays fixed; auto: fixed when its vectors were pretrained on text beyond
  // the training split (data.unlabeled), trained otherwise (see frozen_embeddings).
  Switch freeze_embeddings = Switch::off;
  Task task = Task::single;
};

struct BatchingConfig {
  BatchStrategy strategy = BatchStrategy::bucket;
  int batch_size = 64;
  int maxi_batch = 20;  // bucket: batches per length-sorted pool
};

struct OptimizerConfig {
  OptimizerName name = OptimizerName::adam;
  double lr = 0.001;
  double momentum = 0.9;  // sgd
  double beta1 = 0.9;     // adam
  double beta2 = 0.999;   // adam
  double eps = 1e-8;      // adam
  double weight_decay = 0.0;
  double clip_norm = 5.0;  // global gradient norm; 0 = off
  LrSchedule schedule = LrSchedule::constant;
  double warmup = 0.0;  // fraction of the training steps over which lr rises from 0
  double embedding_lr_scale = 1.0;  // the embedding table's lr as a multiple of lr; 0 = frozen
  double bag_lr_scale = 10.0;       // model.bag's weights' lr as a multiple of lr
};

struct TrainerConfig {
  int epochs = 10;
  int patience = 3;  // epochs without dev improvement before stopping; 0 = never stop early
  SelectMetric select = SelectMetric::auto_;  // the dev score that picks the best epoch
  std::uint64_t seed = 1;
  int ensemble = 1;  // members trained with seeds seed, seed+1, ...; predictions average them
  int threads = 0;   // 0 = all cores
  // A trained model to start from (han train --init): its architecture, tokenizer rules and
  // vocabulary, and its output layer when the labels are the same (train/init_model.h).
  std::string init;
  bool extend_vocab = false;  // with init: add the training words it lacks, with fresh embeddings
  // After training, fit the temperature (and multi-label thresholds) on dev (train/calibration.h).
  bool calibrate = true;
};

// Skip-gram word vectors (han embed, model.embeddings = "pretrain"), the word2vec recipe.
// Their size is model.embedding_dim; threads and seed are trainer.threads and trainer.seed.
struct EmbedConfig {
  int window = 5;         // context words on each side, at most (each position draws 1..window)
  int negative = 5;       // noise words per (word, context) pair
  int epochs = 5;         // passes over the text
  int min_count = 5;      // rarer words are dropped before windows are formed
  double sample = 1e-4;   // frequent-word subsampling threshold; 0 = keep every word
  double lr = 0.025;      // learning rate, decayed linearly to lr * 1e-4
};

// loss.class_weights: none, balanced (n / (classes x count), as scikit-learn), or label -> weight.
struct ClassWeights {
  enum class Mode { none, balanced, given } mode = Mode::none;
  std::vector<std::pair<std::string, double>> given;  // Mode::given, in the config's order
  bool operator==(const ClassWeights& o) const { return mode == o.mode && given == o.given; }
};

struct LossConfig {
  ClassWeights class_weights;  // model.task single
  RegressionLoss regression = RegressionLoss::mse;
  double huber_delta = 1.0;  // huber: quadratic within delta (in standard deviations of the target)
};

// model.embeddings = "pretrain": han train first trains skip-gram vectors on its own text.
inline constexpr char kPretrainEmbeddings[] = "pretrain";
inline bool pretrains_embeddings(const ModelConfig& m) { return m.embeddings == kPretrainEmbeddings; }
struct Config;
// Whether training keeps the embedding table fixed: model.freeze_embeddings true, or auto
// with vectors pretrained on unlabelled text too (their words beyond the training split
// would fall out of step with the trained ones), or optimizer.embedding_lr_scale 0.
bool frozen_embeddings(const Config& c);

struct Config {
  DataConfig data;
  TokenizerConfig tokenizer;
  ModelConfig model;
  BatchingConfig batching;
  OptimizerConfig optimizer;
  TrainerConfig trainer;
  EmbedConfig embed;
  LossConfig loss;
};

// Parses a full config object. `origin` (e.g. the file name) prefixes error messages.
Config config_from_json(const nlohmann::json& j, const std::string& origin);
// Leaves out the keys added after han 0.1.0 while they hold their defaults (stored headers stay as they were).
nlohmann::json config_to_json(const Config& c);
// Every key, defaults included (to compare two configs key by key).
nlohmann::json config_to_full_json(Config c);
// The same for a config han wrote itself (a model file, a run folder): a key added since
// takes the value that reproduces how that model was made.
Config stored_config_from_json(const nlohmann::json& j, const std::string& origin);

// Reads a JSON config file; relative data/embedding paths resolve against its folder (a
// path that is not UTF-8 once resolved is an error naming the key). *given, if asked for,
// receives the keys the file and the overrides set, as JSON (the rest took their defaults).
Config load_config_file(const std::string& path, const std::vector<std::string>& overrides = {},
                        nlohmann::json* given = nullptr);

// Applies "key.path=value" overrides (value parsed as JSON, else taken as a string)
// to a JSON config before it is parsed; unknown key paths are errors.
void apply_overrides(nlohmann::json& j, const std::vector<std::string>& overrides);

// A path han will store in JSON (config.json, a model's header, the train summary) must be
// valid UTF-8 to round-trip: else an Error naming `what` (a key path, an option) and the path.
void require_utf8_path(const std::string& what, const std::string& path);
// The same for every path of a config; `origin` prefixes the key path in the message.
void require_utf8_paths(const Config& c, const std::string& origin);

// One line per key: "section.key  default  description", for --help and the README.
std::string config_reference();

// Every key's full path ("trainer.epochs"), in reference order.
std::vector<std::string> config_key_paths();

}  // namespace han
