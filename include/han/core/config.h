#pragma once
// The run configuration: eight JSON sections (data, tokenizer, model, batching,
// optimizer, trainer, embed, loss). Each key is one row of the table in src/core/config_fields.h,
// which drives defaults, parsing, validation, serialisation and the reference alike
// (`han help config` prints it with every default).
// Unknown keys, wrong types and out-of-range values are han::Error naming the key path.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "han/core/config_enums.h"
#include "han/core/error.h"

namespace han {

struct DataConfig {
  DataConfig();  // every key at its default
  std::string train;  // required for training
  std::string dev;    // optional ("" = none): best-epoch selection falls back to train loss
  std::string test;   // optional
  DataFormat format;
  std::string unlabeled;  // optional: plain text, one document per line, for skip-gram vectors
  std::string label_separator;  // tsv, model.task multilabel: splits the label field
  std::string target_key;  // jsonl, model.task regression: the key of the number
  std::string cache;  // optional token cache file (text/token_cache.h); "" = none
  TextEncoding encoding;  // how the data files' bytes are read (core/text_decoding.h)
};

// The tokenizer's rules: 3 = Unicode, with sentences that do not end at abbreviations,
// initials or inside closing quotes; 2 = Unicode (utf8proc), a sentence ending at every
// '.', '!' or '?' before whitespace; 1 = the rules before Unicode. Models keep the version
// they were trained with (a stored config without tokenizer.version is version 1).
constexpr int kTokenizerVersion = 3;
// tokenizer.max_sentences / max_words "auto": caps chosen from the training data when the
// corpus is loaded (text/caps.h); a trained model always holds the chosen numbers.
constexpr int kAutoCap = 0;
// tokenizer.min_count "auto" (text/vocab.h, VocabBuilder::choose_min_count), held as 0 like the caps.
constexpr int kAutoMinCount = 0;
// A real setting's "auto" (model.linear_weight), held outside every range.
constexpr double kAutoReal = -1.0;

struct TokenizerConfig {
  TokenizerConfig();  // every key at its default
  bool lowercase;
  int max_sentences;  // sentences kept per document; kAutoCap: chosen from the training data
  int max_words;      // words kept per sentence; kAutoCap: chosen from the training data
  int min_count;  // a word enters the vocabulary if seen >= min_count times; auto: 6 ("more than 5") or less on short texts
  int max_vocab;   // including PAD and UNK
  int version;
};

struct ModelConfig {
  ModelConfig();  // every key at its default
  int embedding_dim;   // E
  int word_hidden;      // H per direction, word level
  int sentence_hidden;  // H per direction, sentence level
  int attention_dim;   // A
  MaskMode mask;
  Pooling pooling;
  Bag bag;  // words: a bag-of-words linear term added to the logits
  // A TF-IDF linear model averaged in as one more member (nn/linear_member.h). On by default:
  // it lifts short texts most. A stored config without the key means off.
  bool linear_member;
  int linear_ngrams;  // the linear member's features: 1 words, 2 words and word pairs
  // Its words' character n-grams as features too (nn/char_grams.h); auto: kept when they
  // lower the member's dev loss. A model file holds true or false.
  Switch linear_chars;
  LinearText linear_text;  // what it reads: the whole document, or the HAN's caps of it
  double linear_c;    // its inverse regularisation; kAutoReal: chosen on dev
  // The linear member's share of the average; kAutoReal: chosen on dev (train/linear_weight.h).
  // A model file holds the share it predicts with.
  double linear_weight;
  double dropout;           // on the document vector
  double sentence_dropout;  // on sentence vectors, between the word and sentence levels
  double embedding_dropout; // on word embedding values
  double word_dropout;      // a word reads as <unk> with this probability
  std::string embeddings;         // "", a word2vec/GloVe text file, or kPretrainEmbeddings
  // true: the table stays fixed; auto: fixed when its vectors were pretrained on text beyond
  // the training split (data.unlabeled), trained otherwise (see frozen_embeddings).
  Switch freeze_embeddings;
  Task task;
};

struct BatchingConfig {
  BatchingConfig();  // every key at its default
  BatchStrategy strategy;
  int batch_size;
  int maxi_batch;  // bucket: batches per length-sorted pool
};

struct OptimizerConfig {
  OptimizerConfig();  // every key at its default
  OptimizerName name;
  double lr;
  double momentum;  // sgd
  double beta1;     // adam
  double beta2;   // adam
  double eps;      // adam
  double weight_decay;
  double clip_norm;  // global gradient norm; 0 = off
  LrSchedule schedule;
  double warmup;  // fraction of the training steps over which lr rises from 0
  double embedding_lr_scale;  // the embedding table's lr as a multiple of lr; 0 = frozen
  double bag_lr_scale;       // model.bag's weights' lr as a multiple of lr
  bool lazy_embeddings;      // update only the embedding columns of the batch's words
};

struct TrainerConfig {
  TrainerConfig();  // every key at its default
  int epochs;
  int patience;  // epochs without dev improvement before stopping; 0 = never stop early
  SelectMetric select;  // the dev score that picks the best epoch
  std::uint64_t seed;
  int ensemble;  // members trained with seeds seed, seed+1, ...; predictions average them
  int threads;   // 0 = all cores
  // A trained model to start from (han train --init): its architecture, tokenizer rules and
  // vocabulary, and its output layer when the labels are the same (train/init_model.h).
  std::string init;
  bool extend_vocab;  // with init: add the training words it lacks, with fresh embeddings
  // After training, fit the temperature (and multi-label thresholds) on dev (train/calibration.h).
  bool calibrate;
  // Under mpirun: MPI's own allreduce, or the fixed-order chain (train/gradient_workers.h).
  AllreduceMode allreduce;
  // With allreduce mpi: each part of the gradient summed while backward computes the next.
  bool overlap;
  // Under mpirun: seconds a rank waits for the others before the job ends, naming the ranks
  // that did not arrive (0: wait for ever).
  int rank_timeout;
};

// Skip-gram word vectors (han embed, model.embeddings = "pretrain"), the word2vec recipe.
// Their size is model.embedding_dim; threads and seed are trainer.threads and trainer.seed.
struct EmbedConfig {
  EmbedConfig();  // every key at its default
  int window;         // context words on each side, at most (each position draws 1..window)
  int negative;       // noise words per (word, context) pair
  int epochs;         // passes over the text
  int min_count;      // rarer words are dropped before windows are formed
  double sample;   // frequent-word subsampling threshold; 0 = keep every word
  double lr;      // learning rate, decayed linearly to lr * 1e-4
};

// loss.class_weights: none, balanced (n / (classes x count), as scikit-learn), or label -> weight.
struct ClassWeights {
  enum class Mode { none, balanced, given } mode = Mode::none;
  std::vector<std::pair<std::string, double>> given;  // Mode::given, in the config's order
  bool operator==(const ClassWeights& o) const { return mode == o.mode && given == o.given; }
};

struct LossConfig {
  LossConfig();  // every key at its default
  ClassWeights class_weights;  // model.task single
  RegressionLoss regression;
  double huber_delta;  // huber: quadratic within delta (in standard deviations of the target)
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
// Leaves out the keys added after han 0.1.0 while they mean what their absence means, so
// stored headers are byte-identical to han 0.1.0's for the settings it had.
nlohmann::json config_to_json(const Config& c);
// Every key, defaults included (to compare two configs key by key).
nlohmann::json config_to_full_json(Config c);
// The same for a config han wrote itself (a model file, a run folder): a key it lacks takes
// the value its absence means (the key table's absent_means), which reproduces that model.
Config stored_config_from_json(const nlohmann::json& j, const std::string& origin);

// Reads a JSON config file; relative data/embedding paths resolve against its folder (a
// path that is not UTF-8 once resolved is an error naming the key). *given, if asked for,
// receives the keys the file and the overrides set, as JSON (the rest took their defaults).
Config load_config_file(const std::string& path, const std::vector<std::string>& overrides = {},
                        nlohmann::json* given = nullptr);
// The same for a config given as JSON (`{}`: every default): relative paths are taken from
// base_dir ("": the working folder); `origin` names the config in errors.
Config config_from_given(nlohmann::json j, const std::vector<std::string>& overrides, const std::string& origin,
                         const std::string& base_dir, nlohmann::json* given = nullptr);

// Applies "key.path=value" overrides (value parsed as JSON, else taken as a string)
// to a JSON config before it is parsed; unknown key paths are errors.
void apply_overrides(nlohmann::json& j, const std::vector<std::string>& overrides);

// The last of `overrides` that sets `key` ("key=value"), or null when none does.
const std::string* last_override_of(const std::vector<std::string>& overrides, const std::string& key);

// An error about a key found after the config was read (its message starts with the key's
// path: `loss.class_weights: "zzz" is not one of ...`), blamed on the last override that set
// the key, as errors found while reading are; any other error unchanged.
Error blamed_on_override(const Error& e, const std::vector<std::string>& overrides);

// A path han will store in JSON (config.json, a model's header, the train summary) must be
// valid UTF-8 to round-trip: else an Error naming `what` (a key path, an option) and the path.
void require_utf8_path(const std::string& what, const std::string& path);
// The same for every path of a config; `origin` prefixes the key path in the message.
void require_utf8_paths(const Config& c, const std::string& origin);

// One key of the table, as `han help config` shows it.
struct ConfigKey {
  std::string section, name;  // "trainer", "epochs"
  std::string type;           // boolean, integer, real, path, path or null, choice, string, weights
  std::string default_value;  // as a config file writes it: 10, "auto", "renorm", null
  std::string allowed;        // 1..100000, auto|1..100000, (0.0, 10.0], none|renorm|additive, ...
  std::string meaning;
  // What a config han stored (a model, a run folder) without this key meant, as JSON, when
  // that is not the default; "" otherwise.
  std::string absent_means;
  bool always_written;  // false: han writes it only when it differs from the value above
  std::string path() const { return section + "." + name; }
};

// Every key, in file order.
const std::vector<ConfigKey>& config_keys();

// Every key's full path ("trainer.epochs"), in file order.
std::vector<std::string> config_key_paths();

}  // namespace han
