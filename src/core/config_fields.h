#pragma once
// THE KEY TABLE. Every setting of every section appears exactly once below, one row each:
// its name, meaning, default, range and how stored configs hold it. Everything else is
// driven by it: the section structs' defaults, parsing, serialisation, the reference
// (`han help config`, the man page, docs/configuration.md), --set, and the tests' key list.
// A new key is one row here and one member in include/han/core/config.h.
//
// A visitor provides:
//   boolean(Key, bool&, bool def)
//   integer(Key, Int&, Int def, IntRange)        Int = int or std::uint64_t
//   real(Key, double&, double def, RealRange)
//   path(Key, std::string&)                      a file path string; default "" = none
//   optional_path(Key, std::string&)             null or a path string (null <-> ""); default null
//   enumeration(Key, E&, E def)
//   text(Key, std::string&, const char* def)     a non-empty string that is not a path
//   weights(Key, ClassWeights&)                  "none" (the default), "balanced" or {label: weight}
// and section(name, Section&) for visit_sections.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>

#include "han/core/config.h"

namespace han::config_table {

// How the configs han stores (model headers, run folders, checkpoints) hold a key.
struct Stored {
  // Written even at its default. Keys added after han 0.1.0 are not: left out while they
  // hold their default, a config that does not use them is written as before, so stored
  // models and the fingerprints of stored ablation runs stay byte-identical.
  bool always_written;
  // JSON text: what a stored config without the key meant, when that differs from today's
  // default (the key's default changed, or it came with new behaviour); nullptr otherwise.
  // Such a key is also left out when it holds this value, so it is written as before.
  const char* absent_means;
};
inline constexpr Stored kFirst{true, nullptr};  // a key of han 0.1.0
inline constexpr Stored kLater{false, nullptr};  // a key added after 0.1.0; its default keeps 0.1.0's behaviour

struct Key {
  const char* name;
  const char* meaning;
  Stored stored = kFirst;
};

struct IntRange {
  std::int64_t lo, hi;
  bool or_auto = false;  // also "auto", held as 0 (kAutoCap, kAutoMinCount)
};

struct RealRange {
  double lo, hi;
  bool lo_open, hi_open;
  bool or_auto = false;  // also "auto", held as kAutoReal (outside every range)
};

inline constexpr std::int64_t kTwoTo53 = std::int64_t{1} << 53;

// ---------------------------------------------------------------------------
// Values as a config file writes them.

template <class Int>
nlohmann::json integer_json(Int v, const IntRange& r) {
  return r.or_auto && v == 0 ? nlohmann::json("auto") : nlohmann::json(v);
}
inline nlohmann::json real_json(double v, const RealRange& r) {
  return r.or_auto && v == kAutoReal ? nlohmann::json("auto") : nlohmann::json(v);
}
inline nlohmann::json optional_path_json(const std::string& v) {
  return v.empty() ? nlohmann::json(nullptr) : nlohmann::json(v);
}
template <class E>
nlohmann::json enum_json(E v) {
  if constexpr (std::is_same_v<E, Switch>) {
    if (v != Switch::auto_) return v == Switch::on;  // on/off are written as true/false
  }
  return to_string(v);
}
inline nlohmann::json class_weights_json(const ClassWeights& w) {
  if (w.mode != ClassWeights::Mode::given) return w.mode == ClassWeights::Mode::none ? "none" : "balanced";
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [label, weight] : w.given) out[label] = weight;
  return out;
}

// ---------------------------------------------------------------------------
// The rows.

template <class V>
void visit_fields(DataConfig& c, V& v) {
  v.path({"train", "training data (required by han train)"}, c.train);
  v.path({"dev", "dev data for best-epoch selection, early stopping and calibration; \"\" = none"}, c.dev);
  v.path({"test", "test data evaluated after training; \"\" = none"}, c.test);
  v.enumeration({"format", "input format of the data files; auto: told from each file's first line (or a folder)"},
                c.format, DataFormat::auto_detect);
  v.path({"unlabeled", "unlabelled text, one document per line, for skip-gram vectors; \"\" = none", kLater},
         c.unlabeled);
  v.text({"label_separator", "tsv, model.task multilabel: separates the labels of the label field", kLater},
         c.label_separator, ",");
  v.text({"target_key", "jsonl, model.task regression: the key holding the number to predict", kLater},
         c.target_key, "target");
  v.path({"cache",
          "token cache file: the tokenized splits, written once and mapped by later runs on the same data and "
          "tokenizer settings (see han prepare); \"\" = none",
          kLater},
         c.cache);
  v.enumeration({"encoding",
                 "how the data files' bytes are read: auto = UTF-8, and a line that is not UTF-8 as Windows-1252; "
                 "utf-8 = strict (invalid bytes become U+FFFD); latin-1 (iso-8859-1); windows-1252 (cp1252)",
                 kLater},
                c.encoding, TextEncoding::auto_);
}

template <class V>
void visit_fields(TokenizerConfig& c, V& v) {
  v.boolean({"lowercase", "lowercase text before building the vocabulary"}, c.lowercase, true);
  v.integer({"max_sentences", "sentences kept per document; auto: chosen to keep ~95% of the training tokens"},
            c.max_sentences, 30, IntRange{1, 100000, true});
  v.integer({"max_words", "words kept per sentence; auto: chosen to keep ~95% of the training tokens"},
            c.max_words, 50, IntRange{1, 100000, true});
  v.integer({"min_count",
             "a word enters the vocabulary if seen at least this often in train; auto: 6, or down to 2 when the "
             "words seen at least 6 times hold under 95% of the training tokens (short texts)"},
            c.min_count, kAutoMinCount, IntRange{1, 1000000000, true});
  v.integer({"max_vocab", "largest vocabulary, PAD and UNK included"}, c.max_vocab, 50000, IntRange{3, 10000000});
  v.integer({"version",
             "tokenizer rules: 3 = Unicode, sentences not ended by abbreviations, initials or closing quotes; 2 = "
             "Unicode, a sentence ends at every period; 1 = before Unicode support (older models)",
             {true, "1"}},
            c.version, kTokenizerVersion, IntRange{1, kTokenizerVersion});
}

template <class V>
void visit_fields(ModelConfig& c, V& v) {
  v.integer({"embedding_dim", "word embedding size E"}, c.embedding_dim, 200, IntRange{1, 4096});
  v.integer({"word_hidden", "word GRU hidden size H per direction"}, c.word_hidden, 50, IntRange{1, 4096});
  v.integer({"sentence_hidden", "sentence GRU hidden size H per direction"}, c.sentence_hidden, 50,
            IntRange{1, 4096});
  v.integer({"attention_dim", "attention projection size A"}, c.attention_dim, 100, IntRange{1, 4096});
  v.enumeration({"mask", "treatment of padded positions in attention"}, c.mask, MaskMode::renorm);
  v.enumeration({"pooling", "how word and sentence states are pooled"}, c.pooling, Pooling::attention);
  v.enumeration(
      {"bag", "words: add a linear term over each document's bag of words (sublinear tf, L2-normalised) to the logits",
       kLater},
      c.bag, Bag::none);
  v.boolean({"linear_member",
             "also train a TF-IDF linear model over each document's bag of words and average its answers in as one "
             "more ensemble member",
             {false, "false"}},
            c.linear_member, true);
  v.integer({"linear_ngrams",
             "the linear member's features: 1 = words; 2 = words and the word pairs held by at least 2 training "
             "documents",
             {false, "1"}},
            c.linear_ngrams, 2, IntRange{1, 2});
  v.enumeration({"linear_chars",
                 "the linear member's words' character n-grams (2-5 characters, hashed) as features too, which "
                 "weigh words unseen in training by their parts; auto: kept when they lower its dev loss (kept "
                 "without a dev set)",
                 {false, "false"}},
                c.linear_chars, Switch::auto_);
  v.enumeration({"linear_text",
                 "what the linear member reads: whole = the whole document; caps = only the words within "
                 "tokenizer.max_sentences and max_words (what the HAN reads)",
                 {false, "\"caps\""}},
                c.linear_text, LinearText::whole);
  v.real({"linear_c",
          "the linear member's inverse regularisation C (LIBLINEAR); auto: chosen on dev from 1, 4, 16, ... 1024, "
          "or 16 without a dev set",
          kLater},
         c.linear_c, kAutoReal, RealRange{0.0, 1e9, true, false, true});
  v.real({"linear_weight",
          "the linear member's share of the ensemble's average (the HAN members share the rest); auto: the share "
          "with the lowest dev loss, or an equal share without a dev set",
          kLater},
         c.linear_weight, kAutoReal, RealRange{0.0, 1.0, false, false, true});
  v.real({"dropout", "dropout on the document vector"}, c.dropout, 0.0, RealRange{0.0, 1.0, false, true});
  v.real({"sentence_dropout", "dropout on sentence vectors, between the word and sentence levels", kLater},
         c.sentence_dropout, 0.0, RealRange{0.0, 1.0, false, true});
  v.real({"embedding_dropout", "dropout on word embedding values", kLater}, c.embedding_dropout, 0.0,
         RealRange{0.0, 1.0, false, true});
  v.real({"word_dropout", "probability that a training word reads as <unk>", kLater}, c.word_dropout, 0.0,
         RealRange{0.0, 1.0, false, true});
  v.optional_path({"embeddings",
                   "word vectors (word2vec text or binary, GloVe; gzip ok), or \"pretrain\" (skip-gram on the text "
                   "first); null = random init"},
                  c.embeddings);
  v.enumeration({"freeze_embeddings", "keep the embedding table fixed in training; auto: when pretraining read data.unlabeled"},
                c.freeze_embeddings, Switch::off);
  v.enumeration({"task", "single: one label per document; multilabel: a label set; regression: a number", kLater},
                c.task, Task::single);
}

template <class V>
void visit_fields(BatchingConfig& c, V& v) {
  v.enumeration({"strategy", "bucket: length-sorted pools; random: plain shuffle"}, c.strategy,
                BatchStrategy::bucket);
  v.integer({"batch_size", "documents per batch"}, c.batch_size, 64, IntRange{1, 100000});
  v.integer({"maxi_batch", "bucket: batches per length-sorted pool"}, c.maxi_batch, 20, IntRange{1, 100000});
}

template <class V>
void visit_fields(OptimizerConfig& c, V& v) {
  v.enumeration({"name", "optimizer"}, c.name, OptimizerName::adam);
  v.real({"lr", "learning rate"}, c.lr, 0.001, RealRange{0.0, 10.0, true, false});
  v.real({"momentum", "sgd momentum"}, c.momentum, 0.9, RealRange{0.0, 1.0, false, true});
  v.real({"beta1", "adam first-moment decay"}, c.beta1, 0.9, RealRange{0.0, 1.0, false, true});
  v.real({"beta2", "adam second-moment decay"}, c.beta2, 0.999, RealRange{0.0, 1.0, false, true});
  v.real({"eps", "adam denominator epsilon"}, c.eps, 1e-8, RealRange{0.0, 1.0, true, false});
  v.real({"weight_decay", "weight decay: L2 on the gradient (adam, sgd); adamw: decoupled, biases exempt"},
         c.weight_decay, 0.0, RealRange{0.0, 1.0, false, false});
  v.real({"clip_norm", "global gradient-norm clipping; 0 = off"}, c.clip_norm, 5.0, RealRange{0.0, 1e6, false, false});
  v.enumeration({"schedule", "learning-rate schedule over training (after warm-up)"}, c.schedule,
                LrSchedule::constant);
  v.real({"warmup", "fraction of training steps over which lr rises linearly from 0", kLater}, c.warmup, 0.0,
         RealRange{0.0, 0.5, false, false});
  v.real({"embedding_lr_scale",
          "the embedding table's learning rate as a multiple of lr (schedule included); 0 = kept fixed", kLater},
         c.embedding_lr_scale, 1.0, RealRange{0.0, 10.0, false, false});
  v.real({"bag_lr_scale",
          "the learning rate of model.bag's weights, and of the linear member's when SGD trains it (weighted "
          "documents, trainer.init), as a multiple of lr (schedule included): a linear model on sparse features "
          "learns at a higher rate than the network",
          kLater},
         c.bag_lr_scale, 10.0, RealRange{0.0, 1000.0, true, false});
  v.boolean({"lazy_embeddings",
             "update only the embedding rows of the batch's words (as LazyAdam and SparseAdam do): a step costs the "
             "same whatever the vocabulary; an untouched row's Adam moments wait instead of decaying",
             kLater},
            c.lazy_embeddings, false);
}

template <class V>
void visit_fields(TrainerConfig& c, V& v) {
  v.integer({"epochs", "training epochs"}, c.epochs, 10, IntRange{1, 100000});
  v.integer({"patience", "epochs without dev improvement before stopping; 0 = never stop early"}, c.patience, 3,
            IntRange{0, 100000});
  v.enumeration({"select",
                 "dev score that picks the best epoch and drives early stopping (a tie goes to the lower dev "
                 "loss); auto: accuracy, micro_f1 or rmse by task",
                 kLater},
                c.select, SelectMetric::auto_);
  v.integer({"seed", "seed for initialisation, shuffling, dropout and skip-gram"}, c.seed, std::uint64_t{1},
            IntRange{0, kTwoTo53});
  v.integer({"ensemble",
             "models trained with seeds seed, seed+1, ...; their probabilities are averaged (han train --seeds)",
             kLater},
            c.ensemble, 1, IntRange{1, 100});
  v.integer({"threads", "worker threads (training and skip-gram); 0 = all cores"}, c.threads, 0, IntRange{0, 1024});
  v.path({"init", "a trained model to start from (han train --init); \"\" = none", kLater}, c.init);
  v.boolean({"extend_vocab", "with trainer.init: add the training words the model lacks (min_count), with fresh embeddings",
             kLater},
            c.extend_vocab, false);
  v.boolean({"calibrate", "after training, fit a temperature (and multilabel thresholds) on dev; needs data.dev",
             kLater},
            c.calibrate, true);
  v.enumeration({"allreduce",
                 "under mpirun, how the ranks share the work; mpi: each rank computes the documents of its own "
                 "share of the data (with data.cache it reads only those) and MPI_Allreduce sums the gradients (the "
                 "same model for the same ranks and MPI settings); exact: every batch cut as one process cuts it and "
                 "summed along a fixed-order chain, the bits of one process with as many threads",
                 kLater},
                c.allreduce, AllreduceMode::mpi);
  v.boolean({"overlap",
             "under mpirun with allreduce mpi: sum each part of the gradient over the ranks while the backward pass "
             "computes the next (as PyTorch DDP does); false: sum it all after the pass (to measure what the overlap "
             "hides)",
             kLater},
            c.overlap, true);
  v.integer({"rank_timeout",
             "under mpirun: seconds a rank waits for the others before the job ends with an error naming the ranks "
             "that did not arrive (hung, stopped, or far slower); 0 = wait for ever",
             kLater},
            c.rank_timeout, 600, IntRange{0, 86400});
}

// The embed and loss sections are written only when used (config_to_json).
template <class V>
void visit_fields(EmbedConfig& c, V& v) {
  v.integer({"window", "skip-gram: context words on each side, at most"}, c.window, 5, IntRange{1, 1000});
  v.integer({"negative", "skip-gram: noise words per (word, context) pair"}, c.negative, 5, IntRange{1, 1000});
  v.integer({"epochs", "skip-gram: passes over the text"}, c.epochs, 5, IntRange{1, 100000});
  v.integer({"min_count", "skip-gram: words seen fewer times are dropped"}, c.min_count, 5,
            IntRange{1, 1000000000});
  v.real({"sample", "skip-gram: frequent-word subsampling threshold; 0 = off"}, c.sample, 1e-4,
         RealRange{0.0, 1.0, false, false});
  v.real({"lr", "skip-gram: learning rate, decayed linearly to lr * 1e-4"}, c.lr, 0.025,
         RealRange{0.0, 10.0, true, false});
}

template <class V>
void visit_fields(LossConfig& c, V& v) {
  v.weights({"class_weights",
             "model.task single: weight of each class's documents in the loss; balanced = n / (classes x count)"},
            c.class_weights);
  v.enumeration({"regression", "model.task regression: squared error or Huber loss"}, c.regression,
                RegressionLoss::mse);
  v.real({"huber_delta", "huber: errors up to this many target standard deviations count squared"}, c.huber_delta,
         1.0, RealRange{0.0, 1e6, true, false});
}

// The sections, in file order.
template <class V>
void visit_sections(Config& c, V& v) {
  v.section("data", c.data);
  v.section("tokenizer", c.tokenizer);
  v.section("model", c.model);
  v.section("batching", c.batching);
  v.section("optimizer", c.optimizer);
  v.section("trainer", c.trainer);
  v.section("embed", c.embed);
  v.section("loss", c.loss);
}

}  // namespace han::config_table
