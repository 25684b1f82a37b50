#include "han/core/config.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <set>
#include <sstream>
#include <string_view>
#include <type_traits>

#include "han/core/error.h"
#include "han/core/io.h"
#include "han/core/input_stream.h"
#include "han/core/suggest.h"
#include "han/core/json_text.h"
#include "han/core/select_metric.h"
#include "han/core/utf8.h"

namespace han {
namespace {

using nlohmann::json;

// Enum names, for the reference and type errors: "a|b|c".
template <class E>
std::string enum_choices() {
  std::string out;
  for (const std::string& n : enum_names<E>()) {
    if (!out.empty()) out += '|';
    out += n;
  }
  return out;
}

// ---------------------------------------------------------------------------
// Ranges.

struct IntRange {
  std::int64_t lo, hi;
  bool or_auto = false;  // also "auto", held as 0 (kAutoCap, kAutoMinCount)
};

struct RealRange {
  double lo, hi;
  bool lo_open, hi_open;
  bool or_auto = false;  // also "auto", held as kAutoReal (outside every range)
};

constexpr std::int64_t kTwoTo53 = std::int64_t{1} << 53;

std::string format_real(double v) { return json(v).dump(); }

std::string describe(const IntRange& r) {
  return std::string(r.or_auto ? "auto|" : "") + std::to_string(r.lo) + ".." + std::to_string(r.hi);
}

// An integer's JSON form: "auto" for the 0 of an or_auto range.
template <class Int>
json integer_json(Int v, const IntRange& r) {
  return r.or_auto && v == 0 ? json("auto") : json(v);
}

// A real's JSON form: "auto" for the kAutoReal of an or_auto range.
json real_json(double v, const RealRange& r) { return r.or_auto && v == kAutoReal ? json("auto") : json(v); }

std::string interval_text(const RealRange& r) {
  return std::string(r.lo_open ? "(" : "[") + format_real(r.lo) + ", " + format_real(r.hi) + (r.hi_open ? ")" : "]");
}

std::string describe(const RealRange& r) { return std::string(r.or_auto ? "auto|" : "") + interval_text(r); }

bool in_range(double v, const RealRange& r) {
  const bool lo_ok = r.lo_open ? v > r.lo : v >= r.lo;
  const bool hi_ok = r.hi_open ? v < r.hi : v <= r.hi;
  return lo_ok && hi_ok;
}

// ---------------------------------------------------------------------------
// THE FIELD LIST. Every setting of every section appears exactly once below; the
// visitors further down (parse, serialise, reference, key list, path resolution)
// are all driven by these functions. A visitor provides:
//   boolean(name, bool&, desc)
//   integer(name, Int&, IntRange, desc)          Int = int or std::uint64_t
//   real(name, double&, RealRange, desc)
//   path(name, std::string&, desc)               a file path string ("" = none)
//   optional_path(name, std::string&, desc)      null or a path string (null <-> "")
//   enumeration(name, E&, desc)
//   text(name, std::string&, desc)               a non-empty string that is not a path
//   weights(name, ClassWeights&, desc)           "none", "balanced" or {label: weight}

template <class V>
void visit_fields(DataConfig& c, V& v) {
  v.path("train", c.train, "training data (required by han train)");
  v.path("dev", c.dev, "dev data for best-epoch selection and early stopping; \"\" = none");
  v.path("test", c.test, "test data evaluated after training; \"\" = none");
  v.enumeration("format", c.format, "input format of the data files");
  v.path("unlabeled", c.unlabeled, "unlabelled text, one document per line, for skip-gram vectors; \"\" = none");
  v.text("label_separator", c.label_separator, "tsv, model.task multilabel: separates the labels of the label field");
  v.text("target_key", c.target_key, "jsonl, model.task regression: the key holding the number to predict");
  v.path("cache", c.cache,
         "token cache file: the tokenized splits, written once and mapped by later runs on the same data and "
         "tokenizer settings (see han prepare); \"\" = none");
}

template <class V>
void visit_fields(TokenizerConfig& c, V& v) {
  v.boolean("lowercase", c.lowercase, "lowercase text before building the vocabulary");
  v.integer("max_sentences", c.max_sentences, IntRange{1, 100000, true},
            "sentences kept per document; auto: chosen to keep ~95% of the training tokens");
  v.integer("max_words", c.max_words, IntRange{1, 100000, true},
            "words kept per sentence; auto: chosen to keep ~95% of the training tokens");
  v.integer("min_count", c.min_count, IntRange{1, 1000000000, true},
            "a word enters the vocabulary if seen at least this often in train; auto: 6, or down to 2 when the "
            "words seen at least 6 times hold under 95% of the training tokens (short texts)");
  v.integer("max_vocab", c.max_vocab, IntRange{3, 10000000},
            "largest vocabulary, PAD and UNK included");
  v.integer("version", c.version, IntRange{1, kTokenizerVersion},
            "tokenizer rules: 2 = Unicode; 1 = before Unicode support (older models)");
}

template <class V>
void visit_fields(ModelConfig& c, V& v) {
  v.integer("embedding_dim", c.embedding_dim, IntRange{1, 4096}, "word embedding size E");
  v.integer("word_hidden", c.word_hidden, IntRange{1, 4096}, "word GRU hidden size H per direction");
  v.integer("sentence_hidden", c.sentence_hidden, IntRange{1, 4096},
            "sentence GRU hidden size H per direction");
  v.integer("attention_dim", c.attention_dim, IntRange{1, 4096}, "attention projection size A");
  v.enumeration("mask", c.mask, "treatment of padded positions in attention");
  v.enumeration("pooling", c.pooling, "how word and sentence states are pooled");
  v.enumeration("bag", c.bag,
                "words: add a linear term over each document's bag of words (sublinear tf, L2-normalised) to the logits");
  v.boolean("linear_member", c.linear_member,
            "also train a TF-IDF linear model over each document's bag of words and average its answers in as one "
            "more ensemble member");
  v.real("linear_weight", c.linear_weight, RealRange{0.0, 1.0, false, false, true},
         "the linear member's share of the ensemble's average (the HAN members share the rest); auto: the share "
         "with the lowest dev loss, or an equal share without a dev set");
  v.real("dropout", c.dropout, RealRange{0.0, 1.0, false, true}, "dropout on the document vector");
  v.real("sentence_dropout", c.sentence_dropout, RealRange{0.0, 1.0, false, true},
         "dropout on sentence vectors, between the word and sentence levels");
  v.real("embedding_dropout", c.embedding_dropout, RealRange{0.0, 1.0, false, true}, "dropout on word embedding values");
  v.real("word_dropout", c.word_dropout, RealRange{0.0, 1.0, false, true},
         "probability that a training word reads as <unk>");
  v.optional_path(
      "embeddings", c.embeddings,
      "word vectors (word2vec text or binary, GloVe; gzip ok), or \"pretrain\" (skip-gram on the text first); null = random init");
  v.enumeration("freeze_embeddings", c.freeze_embeddings,
                "keep the embedding table fixed in training; auto: when pretraining read data.unlabeled");
  v.enumeration("task", c.task, "single: one label per document; multilabel: a label set; regression: a number");
}

template <class V>
void visit_fields(BatchingConfig& c, V& v) {
  v.enumeration("strategy", c.strategy, "bucket: length-sorted pools; random: plain shuffle");
  v.integer("batch_size", c.batch_size, IntRange{1, 100000}, "documents per batch");
  v.integer("maxi_batch", c.maxi_batch, IntRange{1, 100000},
            "bucket: batches per length-sorted pool");
}

template <class V>
void visit_fields(OptimizerConfig& c, V& v) {
  v.enumeration("name", c.name, "optimizer");
  v.real("lr", c.lr, RealRange{0.0, 10.0, true, false}, "learning rate");
  v.real("momentum", c.momentum, RealRange{0.0, 1.0, false, true}, "sgd momentum");
  v.real("beta1", c.beta1, RealRange{0.0, 1.0, false, true}, "adam first-moment decay");
  v.real("beta2", c.beta2, RealRange{0.0, 1.0, false, true}, "adam second-moment decay");
  v.real("eps", c.eps, RealRange{0.0, 1.0, true, false}, "adam denominator epsilon");
  v.real("weight_decay", c.weight_decay, RealRange{0.0, 1.0, false, false},
         "weight decay: L2 on the gradient (adam, sgd); adamw: decoupled, biases exempt");
  v.real("clip_norm", c.clip_norm, RealRange{0.0, 1e6, false, false},
         "global gradient-norm clipping; 0 = off");
  v.enumeration("schedule", c.schedule, "learning-rate schedule over training (after warm-up)");
  v.real("warmup", c.warmup, RealRange{0.0, 0.5, false, false},
         "fraction of training steps over which lr rises linearly from 0");
  v.real("embedding_lr_scale", c.embedding_lr_scale, RealRange{0.0, 10.0, false, false},
         "the embedding table's learning rate as a multiple of lr (schedule included); 0 = kept fixed");
  v.real("bag_lr_scale", c.bag_lr_scale, RealRange{0.0, 1000.0, true, false},
         "the learning rate of model.bag's weights and of the linear member's, as a multiple of lr (schedule "
         "included): a linear model on sparse features learns at a higher rate than the network");
}

template <class V>
void visit_fields(TrainerConfig& c, V& v) {
  v.integer("epochs", c.epochs, IntRange{1, 100000}, "training epochs");
  v.integer("patience", c.patience, IntRange{0, 100000},
            "epochs without dev improvement before stopping; 0 = never stop early");
  v.enumeration("select", c.select,
                "dev score that picks the best epoch and drives early stopping; "
                "auto: accuracy, micro_f1 or rmse by task");
  v.integer("seed", c.seed, IntRange{0, kTwoTo53},
            "seed for initialisation, shuffling, dropout and skip-gram");
  v.integer("ensemble", c.ensemble, IntRange{1, 100},
            "models trained with seeds seed, seed+1, ...; their probabilities are averaged (han train --seeds)");
  v.integer("threads", c.threads, IntRange{0, 1024}, "worker threads (training and skip-gram); 0 = all cores");
  v.path("init", c.init, "a trained model to start from (han train --init); \"\" = none");
  v.boolean("extend_vocab", c.extend_vocab,
            "with trainer.init: add the training words the model lacks (min_count), with fresh embeddings");
  v.boolean("calibrate", c.calibrate,
            "after training, fit a temperature (and multilabel thresholds) on dev; needs data.dev");
}

template <class V>
void visit_fields(EmbedConfig& c, V& v) {
  v.integer("window", c.window, IntRange{1, 1000}, "skip-gram: context words on each side, at most");
  v.integer("negative", c.negative, IntRange{1, 1000}, "skip-gram: noise words per (word, context) pair");
  v.integer("epochs", c.epochs, IntRange{1, 100000}, "skip-gram: passes over the text");
  v.integer("min_count", c.min_count, IntRange{1, 1000000000}, "skip-gram: words seen fewer times are dropped");
  v.real("sample", c.sample, RealRange{0.0, 1.0, false, false},
         "skip-gram: frequent-word subsampling threshold; 0 = off");
  v.real("lr", c.lr, RealRange{0.0, 10.0, true, false}, "skip-gram: learning rate, decayed linearly to lr * 1e-4");
}

template <class V>
void visit_fields(LossConfig& c, V& v) {
  v.weights("class_weights", c.class_weights,
            "model.task single: weight of each class's documents in the loss; balanced = n / (classes x count)");
  v.enumeration("regression", c.regression, "model.task regression: squared error or Huber loss");
  v.real("huber_delta", c.huber_delta, RealRange{0.0, 1e6, true, false},
         "huber: errors up to this many target standard deviations count squared");
}

// The sections, in file order. A visitor provides section(name, Section&).
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

// ---------------------------------------------------------------------------
// Key list: every "section.key" with its kind, for overrides and suggestions.

enum class Kind { boolean, integer, real, path, optional_path, enumeration, text, weights };

struct KeyInfo {
  std::string section;
  std::string key;
  Kind kind;
  std::string path() const { return section + "." + key; }
};

struct KeyLister {
  std::vector<KeyInfo> keys;
  std::vector<std::string> sections;
  std::string current;

  template <class S>
  void section(const char* name, S& s) {
    current = name;
    sections.push_back(name);
    visit_fields(s, *this);
  }
  void add(const char* name, Kind k) { keys.push_back({current, name, k}); }
  void boolean(const char* n, bool&, const char*) { add(n, Kind::boolean); }
  template <class Int>
  void integer(const char* n, Int&, IntRange, const char*) { add(n, Kind::integer); }
  void real(const char* n, double&, RealRange, const char*) { add(n, Kind::real); }
  void path(const char* n, std::string&, const char*) { add(n, Kind::path); }
  void optional_path(const char* n, std::string&, const char*) { add(n, Kind::optional_path); }
  template <class E>
  void enumeration(const char* n, E&, const char*) { add(n, Kind::enumeration); }
  void text(const char* n, std::string&, const char*) { add(n, Kind::text); }
  void weights(const char* n, ClassWeights&, const char*) { add(n, Kind::weights); }
};

const KeyLister& key_list() {
  static const KeyLister lister = [] {
    KeyLister l;
    Config c;
    visit_sections(c, l);
    return l;
  }();
  return lister;
}

// Message for an unknown key; `section` is "" for the top level.
std::string unknown_key_message(const std::string& prefix, const std::string& section,
                                 const std::string& key) {
  const KeyLister& kl = key_list();
  std::vector<std::pair<std::string, std::string>> cands;
  if (section.empty()) {
    for (const auto& s : kl.sections) cands.emplace_back(s, s);
    // A setting placed at the top level by mistake: suggest its full path.
    for (const auto& k : kl.keys) cands.emplace_back(k.key, k.path());
  } else {
    // Keys of the same section first, then the same name in another section
    // ("model.lr" -> "optimizer.lr").
    for (const auto& k : kl.keys) {
      if (k.section == section) cands.emplace_back(k.key, k.path());
    }
    for (const auto& k : kl.keys) {
      if (k.section != section) cands.emplace_back(k.key, k.path());
    }
  }
  const std::string full = section.empty() ? key : section + "." + key;
  return prefix + "unknown key " + quote_excerpt(full) + suggestion(key, cands);
}

const KeyInfo* find_key(const std::string& section, const std::string& key) {
  for (const auto& k : key_list().keys) {
    if (k.section == section && k.key == key) return &k;
  }
  return nullptr;
}

std::string prefix_of(const std::string& origin) { return origin.empty() ? "" : origin + ": "; }

// Settings that hold for one task only: refused under another, naming the key.
void check_task_settings(const Config& c, const std::string& prefix) {
  if (!select_metric_fits(c.trainer.select, c.model.task))
    throw Error(prefix + "trainer.select: " + to_string(c.trainer.select) + " is not a score of model.task " +
                to_string(c.model.task) + " (choose one of " + select_metric_choices(c.model.task) + ")");
  if (c.loss.class_weights.mode != ClassWeights::Mode::none && c.model.task != Task::single)
    throw Error(prefix + "loss.class_weights: applies to model.task single only (this config has " +
                to_string(c.model.task) + ")");
}

// ---------------------------------------------------------------------------
// Parsing.

struct Parser {
  std::string prefix;  // "origin: " or ""
  const json* obj = nullptr;
  std::string section_name;
  std::set<std::string> known;

  std::string where(const char* name) const { return prefix + section_name + "." + name; }

  const json* get(const char* name) {
    known.insert(name);
    auto it = obj->find(name);
    return it == obj->end() ? nullptr : &*it;
  }

  [[noreturn]] void type_error(const char* name, const char* expected, const json& v) const {
    throw Error(where(name) + ": expected " + expected + ", got " + json_excerpt(v));
  }

  void boolean(const char* name, bool& out, const char*) {
    const json* v = get(name);
    if (!v) return;
    if (!v->is_boolean()) type_error(name, "true or false", *v);
    out = v->get<bool>();
  }

  template <class Int>
  void integer(const char* name, Int& out, IntRange r, const char*) {
    const json* v = get(name);
    if (!v) return;
    if (r.or_auto && v->is_string() && v->get<std::string>() == "auto") {
      out = 0;
      return;
    }
    if (!v->is_number_integer()) type_error(name, r.or_auto ? "an integer or \"auto\"" : "an integer", *v);
    bool ok;
    if (v->is_number_unsigned()) {
      const auto u = v->get<std::uint64_t>();
      ok = r.hi >= 0 && u <= static_cast<std::uint64_t>(r.hi) &&
           (r.lo <= 0 || u >= static_cast<std::uint64_t>(r.lo));
    } else {
      const auto i = v->get<std::int64_t>();
      ok = i >= r.lo && i <= r.hi;
    }
    if (!ok) {
      throw Error(where(name) + ": must be between " + std::to_string(r.lo) + " and " +
                  std::to_string(r.hi) + ", got " + json_excerpt(*v));
    }
    out = static_cast<Int>(v->get<std::int64_t>());
  }

  void real(const char* name, double& out, RealRange r, const char*) {
    const json* v = get(name);
    if (!v) return;
    if (r.or_auto && v->is_string() && v->get<std::string>() == "auto") {
      out = kAutoReal;
      return;
    }
    if (!v->is_number()) type_error(name, r.or_auto ? "a number or \"auto\"" : "a number", *v);
    const double d = v->get<double>();
    if (!in_range(d, r)) {
      throw Error(where(name) + ": must be " + (r.or_auto ? "\"auto\" or " : "") + "in " + interval_text(r) + ", got " +
                  json_excerpt(*v));
    }
    out = d;
  }

  void path(const char* name, std::string& out, const char*) {
    const json* v = get(name);
    if (!v) return;
    if (!v->is_string()) type_error(name, "a string", *v);
    out = v->get<std::string>();
    require_utf8_path(where(name), out);
  }

  void optional_path(const char* name, std::string& out, const char*) {
    const json* v = get(name);
    if (!v) return;
    if (v->is_null()) {
      out.clear();
      return;
    }
    if (!v->is_string()) type_error(name, "a string or null", *v);
    out = v->get<std::string>();
    require_utf8_path(where(name), out);
  }

  template <class E>
  void enumeration(const char* name, E& out, const char*) {
    const json* v = get(name);
    if (!v) return;
    if constexpr (std::is_same_v<E, Switch>) {
      if (v->is_boolean()) {
        out = v->get<bool>() ? Switch::on : Switch::off;
        return;
      }
    }
    if (!v->is_string()) {
      type_error(name, ("one of " + enum_choices<E>()).c_str(), *v);
    }
    out = parse_enum<E>(v->get<std::string>(), where(name));
  }

  void text(const char* name, std::string& out, const char*) {
    const json* v = get(name);
    if (!v) return;
    if (!v->is_string() || v->get<std::string>().empty()) type_error(name, "a non-empty string", *v);
    const std::string t = v->get<std::string>();
    if (first_invalid_utf8(t) != t.size() || std::any_of(t.begin(), t.end(), [](char c) {
          return static_cast<unsigned char>(c) < 0x20 || c == 0x7F;
        }))
      throw Error(where(name) + ": must be valid UTF-8 without control characters, got " + json_excerpt(*v));
    out = t;
  }

  void weights(const char* name, ClassWeights& out, const char*) {
    const json* v = get(name);
    if (!v) return;
    if (v->is_string() && (*v == "none" || *v == "balanced")) {
      out = {*v == "none" ? ClassWeights::Mode::none : ClassWeights::Mode::balanced, {}};
      return;
    }
    if (!v->is_object() || v->empty())
      type_error(name, "\"none\", \"balanced\" or an object of label: weight", *v);
    out = {ClassWeights::Mode::given, {}};
    for (const auto& item : v->items()) {
      const json& w = item.value();
      if (!w.is_number() || !(w.get<double>() > 0) || !std::isfinite(w.get<double>()))
        throw Error(where(name) + "." + item.key() + ": expected a positive number, got " + json_excerpt(w));
      out.given.emplace_back(item.key(), w.get<double>());
    }
  }
};

struct SectionParser {
  std::string prefix;
  const json* root;

  template <class S>
  void section(const char* name, S& s) {
    auto it = root->find(name);
    if (it == root->end()) return;
    if (!it->is_object()) {
      throw Error(prefix + name + ": expected an object, got " + json_excerpt(*it));
    }
    Parser p;
    p.prefix = prefix;
    p.obj = &*it;
    p.section_name = name;
    visit_fields(s, p);
    for (const auto& item : it->items()) {
      if (!p.known.count(item.key())) {
        throw Error(unknown_key_message(prefix, name, item.key()));
      }
    }
  }
};

// ---------------------------------------------------------------------------
// Serialisation.

json class_weights_json(const ClassWeights& w) {
  if (w.mode != ClassWeights::Mode::given) return w.mode == ClassWeights::Mode::none ? "none" : "balanced";
  json out = json::object();
  for (const auto& [label, weight] : w.given) out[label] = weight;
  return out;
}

struct Writer {
  json* out = nullptr;

  template <class S>
  void section(const char* name, S& s) {
    json sec = json::object();
    Writer w;
    w.out = &sec;
    visit_fields(s, w);
    (*out)[name] = std::move(sec);
  }
  void boolean(const char* n, bool& v, const char*) { (*out)[n] = v; }
  template <class Int>
  void integer(const char* n, Int& v, IntRange r, const char*) { (*out)[n] = integer_json(v, r); }
  void real(const char* n, double& v, RealRange r, const char*) { (*out)[n] = real_json(v, r); }
  void path(const char* n, std::string& v, const char*) { (*out)[n] = v; }
  void optional_path(const char* n, std::string& v, const char*) {
    (*out)[n] = v.empty() ? json(nullptr) : json(v);
  }
  template <class E>
  void enumeration(const char* n, E& v, const char*) {
    if constexpr (std::is_same_v<E, Switch>) {
      if (v != Switch::auto_) {
        (*out)[n] = v == Switch::on;
        return;
      }
    }
    (*out)[n] = to_string(v);
  }
  void text(const char* n, std::string& v, const char*) { (*out)[n] = v; }
  void weights(const char* n, ClassWeights& v, const char*) { (*out)[n] = class_weights_json(v); }
};

// ---------------------------------------------------------------------------
// Reference rows: path, default, allowed, description.

struct Referencer {
  struct Row {
    std::string path, def, allowed, desc;
  };
  std::vector<Row> rows;
  std::string current;

  template <class S>
  void section(const char* name, S& s) {
    current = name;
    visit_fields(s, *this);
  }
  void add(const char* n, std::string def, std::string allowed, const char* desc) {
    rows.push_back({current + "." + n, std::move(def), std::move(allowed), desc});
  }
  void boolean(const char* n, bool& v, const char* d) { add(n, v ? "true" : "false", "true|false", d); }
  template <class Int>
  void integer(const char* n, Int& v, IntRange r, const char* d) {
    add(n, integer_json(v, r).dump(), describe(r), d);
  }
  void real(const char* n, double& v, RealRange r, const char* d) {
    add(n, real_json(v, r).dump(), describe(r), d);
  }
  void path(const char* n, std::string& v, const char* d) {
    add(n, json(v).dump(), "path", d);
  }
  void optional_path(const char* n, std::string& v, const char* d) {
    add(n, v.empty() ? "null" : json(v).dump(), "null|path", d);
  }
  template <class E>
  void enumeration(const char* n, E& v, const char* d) {
    add(n, to_string(v), enum_choices<E>(), d);
  }
  void text(const char* n, std::string& v, const char* d) { add(n, json(v).dump(), "string", d); }
  void weights(const char* n, ClassWeights& v, const char* d) {
    add(n, class_weights_json(v).dump(), "none|balanced|{label: weight}", d);
  }
};

// ---------------------------------------------------------------------------
// Relative path resolution against a folder.

struct PathResolver {
  std::filesystem::path base;

  template <class S>
  void section(const char*, S& s) {
    visit_fields(s, *this);
  }
  void resolve(std::string& p) const {
    if (p.empty() || base.empty() || is_stdin_name(p)) return;
    const std::filesystem::path fp(p);
    if (fp.is_absolute()) return;
    p = (base / fp).lexically_normal().string();
  }
  void boolean(const char*, bool&, const char*) {}
  template <class Int>
  void integer(const char*, Int&, IntRange, const char*) {}
  void real(const char*, double&, RealRange, const char*) {}
  void path(const char*, std::string& v, const char*) { resolve(v); }
  void optional_path(const char*, std::string& v, const char*) {
    if (v != kPretrainEmbeddings) resolve(v);
  }
  template <class E>
  void enumeration(const char*, E&, const char*) {}
  void text(const char*, std::string&, const char*) {}
  void weights(const char*, ClassWeights&, const char*) {}
};

// Every path of a config, checked once it is final (joined to a folder that may not be
// UTF-8 itself); `prefix` names where the config came from.
struct PathChecker {
  std::string prefix;
  std::string section_name;

  template <class S>
  void section(const char* name, S& s) {
    section_name = name;
    visit_fields(s, *this);
  }
  void boolean(const char*, bool&, const char*) {}
  template <class Int>
  void integer(const char*, Int&, IntRange, const char*) {}
  void real(const char*, double&, RealRange, const char*) {}
  void path(const char* n, std::string& v, const char*) { require_utf8_path(prefix + section_name + "." + n, v); }
  void optional_path(const char* n, std::string& v, const char* d) { path(n, v, d); }
  template <class E>
  void enumeration(const char*, E&, const char*) {}
  void text(const char*, std::string&, const char*) {}
  void weights(const char*, ClassWeights&, const char*) {}
};

// Line and column (1-based) of the character at byte offset `pos` (0-based).
std::pair<std::size_t, std::size_t> line_col(const std::string& text, std::size_t pos) {
  pos = std::min(pos, text.size());
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i < pos; ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

}  // namespace

json config_to_full_json(Config c) {  // the visitors take mutable references: `c` is a copy
  json out = json::object();
  Writer w;
  w.out = &out;
  visit_sections(c, w);
  return out;
}

// ---------------------------------------------------------------------------
// Public API.

namespace {

// Every section's keys, each checked on its own (no check across keys).
Config sections_from_json(const nlohmann::json& j, const std::string& origin) {
  const std::string prefix = prefix_of(origin);
  if (!j.is_object()) {
    throw Error(prefix + "expected a JSON object at the top level, got " + json_excerpt(j));
  }
  Config c;
  const KeyLister& kl = key_list();
  for (const auto& item : j.items()) {
    if (std::find(kl.sections.begin(), kl.sections.end(), item.key()) == kl.sections.end()) {
      throw Error(unknown_key_message(prefix, "", item.key()));
    }
  }
  SectionParser sp{prefix, &j};
  visit_sections(c, sp);
  return c;
}

}  // namespace

Config config_from_json(const nlohmann::json& j, const std::string& origin) {
  Config c = sections_from_json(j, origin);
  check_task_settings(c, prefix_of(origin));
  return c;
}

bool frozen_embeddings(const Config& c) {
  if (c.optimizer.embedding_lr_scale == 0) return true;
  if (c.model.freeze_embeddings != Switch::auto_) return c.model.freeze_embeddings == Switch::on;
  return pretrains_embeddings(c.model) && !c.data.unlabeled.empty();
}

namespace {

// Keys whose default changed after han had written configs without them, and what such a
// file meant: read back as written (stored_config_from_json), and written as before.
struct EarlierDefault {
  const char* section;
  const char* key;
  void (*restore)(Config&);
};
constexpr EarlierDefault kEarlierDefaults[] = {
    // tokenizer.version came with the Unicode tokenizer: without it, the text was tokenized
    // by the rules before.
    {"tokenizer", "version", [](Config& c) { c.tokenizer.version = 1; }},
    // model.linear_member was off by default when such a file was written without it.
    {"model", "linear_member", [](Config& c) { c.model.linear_member = false; }},
};

// The defaults against which config_to_json leaves keys out: today's, but each key whose
// default changed at its earlier default, so that it is written exactly when a file of
// before would have held it.
Config written_as_before() {
  Config c;
  for (const EarlierDefault& d : kEarlierDefaults) d.restore(c);
  return c;
}

}  // namespace

Config stored_config_from_json(const nlohmann::json& j, const std::string& origin) {
  Config c = config_from_json(j, origin);
  for (const EarlierDefault& d : kEarlierDefaults) {
    const auto section = j.find(d.section);
    if (section == j.end() || !section->contains(d.key)) d.restore(c);
  }
  return c;
}

nlohmann::json config_to_json(const Config& c) {
  json out = config_to_full_json(c);
  // Settings added after han 0.1.0 are left out while they hold their defaults, so a config
  // that does not use them is written as before: model headers, checkpoints and the
  // fingerprints of stored ablation runs stay the same (reading fills in the defaults).
  // A run that pretrains records its embed settings.
  static const json defaults = config_to_full_json(written_as_before());
  static const std::pair<const char*, const char*> later_keys[] = {
      {"data", "unlabeled"},         {"model", "sentence_dropout"}, {"model", "embedding_dropout"},
      {"model", "word_dropout"},     {"optimizer", "warmup"},       {"trainer", "select"},
      {"trainer", "ensemble"},       {"model", "task"},             {"data", "label_separator"},   {"data", "target_key"},
      {"trainer", "init"},           {"trainer", "extend_vocab"},   {"data", "cache"},
      {"trainer", "calibrate"},      {"optimizer", "embedding_lr_scale"}, {"model", "bag"},
      {"optimizer", "bag_lr_scale"}, {"model", "linear_member"}, {"model", "linear_weight"}};
  for (const auto& [section, key] : later_keys)
    if (out[section][key] == defaults[section][key]) out[section].erase(key);
  if (out["embed"] == defaults["embed"] && !pretrains_embeddings(c.model)) out.erase("embed");
  if (out["loss"] == defaults["loss"]) out.erase("loss");
  return out;
}

// An override as typed when it is plain text, else quoted (a control byte or invalid
// UTF-8 must not break the one-line error).
std::string shown_override(const std::string& o) {
  const bool plain = std::all_of(o.begin(), o.end(), [](char c) { return c >= 0x20 && c < 0x7F; });
  return "--set " + (plain ? o : quote_excerpt(o));
}

// `--set section=value`: name the section's keys instead of suggesting the section itself.
[[noreturn]] void throw_unknown_override_key(const std::string& override_text, const std::string& path) {
  const std::size_t dot = path.find('.');
  if (dot == std::string::npos) {
    for (const KeyInfo& k : key_list().keys) {
      if (k.section != path) continue;
      throw Error(shown_override(override_text) + ": " + quote_excerpt(path) + " is a section: set one of its keys, as in --set " +
                  k.path() + "=...");
    }
    throw Error(unknown_key_message("--set: ", "", path));
  }
  throw Error(unknown_key_message("--set: ", path.substr(0, dot), path.substr(dot + 1)));
}

// The value of one override, typed as its key expects and checked on its own, so a bad
// value is blamed on the --set that gave it. Paths on the command line are relative to
// the current folder, not to the config's.
json override_value(const KeyInfo& info, const std::string& override_text, const std::string& text) {
  json value = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) value = text;
  // Text settings take the text as written, so `data.train=2024` names a file "2024".
  const bool texty = info.kind == Kind::path || info.kind == Kind::enumeration || info.kind == Kind::text ||
                     (info.kind == Kind::optional_path && !value.is_null());
  if (texty && !value.is_string()) value = text;
  const bool is_path = info.kind == Kind::path || (info.kind == Kind::optional_path && value != kPretrainEmbeddings);
  if (is_path && value.is_string() && !value.get<std::string>().empty() && !is_stdin_name(value.get<std::string>()) &&
      !std::filesystem::path(value.get<std::string>()).is_absolute())
    value = std::filesystem::absolute(value.get<std::string>()).lexically_normal().string();
  sections_from_json(json{{info.section, {{info.key, value}}}}, shown_override(override_text));
  return value;
}

void apply_overrides(nlohmann::json& j, const std::vector<std::string>& overrides) {
  if (j.is_null()) j = json::object();
  for (const std::string& o : overrides) {
    const std::size_t eq = o.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw Error("--set: expected key.path=value, got " + quote_excerpt(o));
    }
    const std::string path = o.substr(0, eq);
    const std::size_t dot = path.find('.');
    const KeyInfo* info = nullptr;
    if (dot != std::string::npos) info = find_key(path.substr(0, dot), path.substr(dot + 1));
    if (!info) throw_unknown_override_key(o, path);
    json value = override_value(*info, o, o.substr(eq + 1));
    // A malformed config is reported by config_from_json; leave it alone here.
    if (!j.is_object()) continue;
    json& sec = j[info->section];
    if (sec.is_null()) sec = json::object();
    if (!sec.is_object()) continue;
    sec[info->key] = std::move(value);
  }
}

// nlohmann/json keeps the last of duplicate keys; in a config that would hide a setting,
// so a key given twice in one object is an error naming it.
json::parser_callback_t refuse_duplicate_keys(const std::string& path) {
  struct Open {
    std::string prefix, last_key;  // "model." and the key being read inside it
    std::set<std::string> seen;
  };
  auto open = std::make_shared<std::vector<Open>>();
  return [open, path](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) {
      const std::string prefix = open->empty() ? "" : open->back().prefix + open->back().last_key + ".";
      open->push_back({prefix, "", {}});
    } else if (event == json::parse_event_t::object_end && !open->empty()) {
      open->pop_back();
    } else if (event == json::parse_event_t::key && !open->empty()) {
      Open& o = open->back();
      o.last_key = parsed.get<std::string>();
      if (!o.seen.insert(o.last_key).second)
        throw Error(path + ": " + quote_excerpt(o.prefix + o.last_key) + " is given twice (a key may appear once)");
    }
    return true;
  };
}

Config load_config_file(const std::string& path, const std::vector<std::string>& overrides, json* given) {
  const std::string text = read_file(path);
  json j;
  try {
    j = json::parse(text, refuse_duplicate_keys(path));
  } catch (const json::parse_error& e) {
    // e.byte is the 1-based index of the last character read.
    const std::size_t pos = e.byte == 0 ? 0 : e.byte - 1;
    const auto [line, col] = line_col(text, pos);
    throw Error(path + ":" + std::to_string(line) + ":" + std::to_string(col) +
                ": malformed JSON: " + json_error_reason(e));
  } catch (const json::exception& e) {  // e.g. out_of_range 406: a number like 1e400
    throw Error(path + ": malformed JSON: " + json_error_reason(e));
  }
  apply_overrides(j, overrides);
  Config c = config_from_json(j, path);
  PathResolver r{std::filesystem::path(path).parent_path()};
  visit_sections(c, r);
  require_utf8_paths(c, path);
  if (given) *given = std::move(j);
  return c;
}

void require_utf8_path(const std::string& what, const std::string& path) {
  const std::size_t bad = first_invalid_utf8(path);
  if (bad == path.size()) return;
  char byte[8];
  std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(path[bad]));
  throw Error(what + ": path " + quote_excerpt(path) + " is not valid UTF-8 (byte " + byte + " at offset " +
              std::to_string(bad) + "); han stores paths as JSON text (config.json, the model), so rename the "
              "file or folder");
}

void require_utf8_paths(const Config& c, const std::string& origin) {
  Config copy = c;  // the visitors take mutable references; nothing is changed
  PathChecker checker{prefix_of(origin), ""};
  visit_sections(copy, checker);
}

std::vector<std::string> config_key_paths() {
  std::vector<std::string> out;
  for (const KeyInfo& k : key_list().keys) out.push_back(k.path());
  return out;
}

std::string config_reference() {
  Config c;
  Referencer r;
  visit_sections(c, r);
  std::size_t w_path = 0, w_def = 0, w_allowed = 0;
  for (const auto& row : r.rows) {
    w_path = std::max(w_path, row.path.size());
    w_def = std::max(w_def, row.def.size());
    w_allowed = std::max(w_allowed, row.allowed.size());
  }
  std::ostringstream out;
  for (const auto& row : r.rows) {
    out << row.path << std::string(w_path - row.path.size() + 2, ' ') << row.def
        << std::string(w_def - row.def.size() + 2, ' ') << row.allowed
        << std::string(w_allowed - row.allowed.size() + 2, ' ') << row.desc << '\n';
  }
  return out.str();
}

}  // namespace han
