#include "han/train/trainer.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>

#include "han/text/batcher.h"
#include "han/infer/classifier.h"
#include "han/core/error.h"
#include "han/core/io.h"
#include "han/nn/loss.h"
#include "han/infer/evaluation.h"
#include "han/train/optimizer.h"
#include "han/core/parallel.h"
#include "han/nn/parameters.h"
#include "han/core/random.h"
#include "han/text/pretrained_vectors.h"

namespace han {

nlohmann::json EpochRecord::to_json() const {
  auto number = [](double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); };
  return {{"epoch", epoch},
          {"train_loss", number(train_loss)},
          {"dev_accuracy", number(dev_accuracy)},
          {"dev_macro_f1", number(dev_macro_f1)},
          {"seconds", seconds},
          {"docs_per_second", docs_per_second},
          {"tokens_per_second", tokens_per_second},
          {"padding_fraction", padding_fraction},
          {"sentence_padding_fraction", sentence_padding_fraction},
          {"best", best}};
}

EpochRecord EpochRecord::from_json(const nlohmann::json& j) {
  auto number = [](const nlohmann::json& v) {
    return v.is_null() ? std::numeric_limits<double>::quiet_NaN() : v.get<double>();
  };
  EpochRecord e;
  e.epoch = j.at("epoch");
  e.train_loss = number(j.at("train_loss"));
  e.dev_accuracy = number(j.at("dev_accuracy"));
  e.dev_macro_f1 = number(j.at("dev_macro_f1"));
  e.seconds = j.at("seconds");
  e.docs_per_second = j.at("docs_per_second");
  e.tokens_per_second = j.at("tokens_per_second");
  e.padding_fraction = j.at("padding_fraction");
  e.sentence_padding_fraction = j.at("sentence_padding_fraction");
  e.best = j.at("best");
  return e;
}

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// One thread's state: forward caches and its own gradient buffers.
struct Worker {
  HanCache cache;
  HanParams grads;
  double loss = 0;
};

std::vector<std::int32_t> unique_ids(std::vector<std::int32_t> ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

// Calls f(tensor, other) for every tensor pair except the embedding table, which the
// trainer handles column by column (only the columns of words in the batch are non-zero).
template <class F>
void for_dense_pairs(HanParams& a, HanParams& b, F&& f) {
  std::vector<Matrix*> bs;
  HanParams::fields(b, [&](const std::string&, Matrix& m) { bs.push_back(&m); });
  std::size_t i = 0;
  HanParams::fields(a, [&](const std::string& name, Matrix& m) {
    Matrix* other = bs[i++];
    if (name != "embedding.table") f(m, *other);
  });
}

// Sums the workers' gradients into workers[0], in worker order (deterministic).
void reduce_gradients(std::vector<Worker>& workers) {
  Worker& root = workers[0];
  for (std::size_t k = 1; k < workers.size(); ++k) {
    for_dense_pairs(root.grads, workers[k].grads, [](Matrix& into, Matrix& from) { into += from; });
    for (std::int32_t id : unique_ids(workers[k].cache.token_ids))
      root.grads.embedding.table.col(id) += workers[k].grads.embedding.table.col(id);
  }
}

void zero_gradients(std::vector<Worker>& workers) {
  for (Worker& w : workers) {
    for_dense_pairs(w.grads, w.grads, [](Matrix& m, Matrix&) { m.setZero(); });
    for (std::int32_t id : w.cache.token_ids) w.grads.embedding.table.col(id).setZero();
    // Worker 0 also holds the other workers' embedding columns after the reduction.
  }
  for (std::size_t k = 1; k < workers.size(); ++k)
    for (std::int32_t id : workers[k].cache.token_ids) workers[0].grads.embedding.table.col(id).setZero();
}

struct DevScore {
  double accuracy = std::numeric_limits<double>::quiet_NaN();
  double macro_f1 = std::numeric_limits<double>::quiet_NaN();
};

DevScore score_dev(const HanParams& params, const Config& cfg, const Corpus& corpus, int threads) {
  DevScore s;
  if (corpus.dev.empty()) return s;
  const Metrics m = evaluate(Predictor(params, cfg.model, threads), corpus.dev, scoring_batches(corpus.dev, cfg));
  s.accuracy = m.accuracy;
  s.macro_f1 = m.macro_f1;
  return s;
}

std::string numeric_fault(int epoch, long long step, double loss, double norm) {
  const bool bad_loss = !std::isfinite(loss);
  const double value = bad_loss ? loss : norm;
  return "training diverged at epoch " + std::to_string(epoch) + ", step " + std::to_string(step) + ": " +
         (bad_loss ? "the loss" : "the gradient norm") + " is " + (std::isnan(value) ? "NaN" : "infinite") +
         " (try a smaller optimizer.lr, or optimizer.clip_norm)";
}

}  // namespace

namespace {

// Everything besides tensors that a checkpoint must carry to continue a run exactly.
struct TrainState {
  int epoch = 1;               // the epoch in progress
  std::size_t next_batch = 0;  // its first batch still to run
  double loss_sum = 0, epoch_seconds = 0;
  Index docs_seen = 0, tokens_seen = 0, sentences_seen = 0, word_slots = 0, sentence_slots = 0;
  double best_score = -std::numeric_limits<double>::infinity();
  int best_epoch = 0, epochs_without_gain = 0;
  std::vector<EpochRecord> history;

  nlohmann::json to_json() const {
    nlohmann::json h = nlohmann::json::array();
    for (const EpochRecord& r : history) h.push_back(r.to_json());
    return {{"epoch", epoch}, {"next_batch", next_batch}, {"loss_sum", loss_sum}, {"epoch_seconds", epoch_seconds},
            {"docs_seen", docs_seen}, {"tokens_seen", tokens_seen}, {"sentences_seen", sentences_seen},
            {"word_slots", word_slots}, {"sentence_slots", sentence_slots},
            {"best_score", std::isfinite(best_score) ? nlohmann::json(best_score) : nlohmann::json(nullptr)},
            {"best_epoch", best_epoch}, {"epochs_without_gain", epochs_without_gain}, {"history", h}};
  }

  static TrainState from_json(const nlohmann::json& j) {
    TrainState s;
    s.epoch = j.at("epoch");
    s.next_batch = j.at("next_batch");
    s.loss_sum = j.at("loss_sum");
    s.epoch_seconds = j.at("epoch_seconds");
    s.docs_seen = j.at("docs_seen");
    s.tokens_seen = j.at("tokens_seen");
    s.sentences_seen = j.at("sentences_seen");
    s.word_slots = j.at("word_slots");
    s.sentence_slots = j.at("sentence_slots");
    s.best_score = j.at("best_score").is_null() ? -std::numeric_limits<double>::infinity() : j.at("best_score").get<double>();
    s.best_epoch = j.at("best_epoch");
    s.epochs_without_gain = j.at("epochs_without_gain");
    for (const nlohmann::json& r : j.at("history")) s.history.push_back(EpochRecord::from_json(r));
    return s;
  }

  void start_epoch(int e) {
    epoch = e;
    next_batch = 0;
    loss_sum = epoch_seconds = 0;
    docs_seen = tokens_seen = sentences_seen = word_slots = sentence_slots = 0;
  }
};

std::string metrics_text(const std::vector<EpochRecord>& history) {
  std::string out;
  for (const EpochRecord& r : history) out += r.to_json().dump() + "\n";
  return out;
}

void save_checkpoint(const std::string& path, const Classifier& model, Optimizer& optimizer,
                     const std::vector<ParamRef>& refs, const TrainState& state) {
  std::vector<NamedTensor> extra;
  for (const ParamRef& r : optimizer.state(refs)) extra.push_back({"optimizer." + r.name, *r.value});
  save_classifier(path, model, {{"checkpoint", state.to_json()}, {"optimizer_steps", optimizer.steps()}}, extra);
}

// Restores parameters, optimizer state and progress; the data must be what it was.
TrainState load_checkpoint(const std::string& path, Classifier& model, Optimizer& optimizer,
                           const std::vector<ParamRef>& refs) {
  std::vector<NamedTensor> extra;
  nlohmann::json header;
  Classifier stored = load_classifier(path, &extra, &header);
  if (stored.vocab.words() != model.vocab.words() || stored.labels != model.labels)
    throw Error(path + ": the training data changed since this checkpoint (vocabulary or labels differ)");
  if (config_to_json(stored.config) != config_to_json(model.config))
    throw Error(path + ": the config changed since this checkpoint");
  model.params = std::move(stored.params);
  for (const ParamRef& r : optimizer.state(refs)) {
    auto it = std::find_if(extra.begin(), extra.end(), [&](const NamedTensor& t) { return t.name == "optimizer." + r.name; });
    if (it == extra.end() || it->value.rows() != r.value->rows() || it->value.cols() != r.value->cols())
      throw Error(path + ": checkpoint is corrupted (optimizer state " + r.name + ")");
    *r.value = it->value;
  }
  try {
    optimizer.set_steps(header.at("optimizer_steps").get<long long>());
    return TrainState::from_json(header.at("checkpoint"));
  } catch (const nlohmann::json::exception&) {
    throw Error(path + ": checkpoint is corrupted (training state)");
  }
}

}  // namespace

TrainResult train_model(const Config& cfg, const Corpus& corpus, const TrainOptions& options) {
  const int threads = resolve_threads(cfg.trainer.threads);
  const Index classes = static_cast<Index>(corpus.labels.size());
  Rng init_rng(derive_seed(cfg.trainer.seed, SeedStream::init));
  Classifier model{cfg, corpus.vocab, corpus.labels,
                   han_init(cfg.model, static_cast<Index>(corpus.vocab.size()), classes, init_rng)};
  if (!cfg.model.embeddings.empty() && !options.resume) {
    const std::size_t found = load_pretrained_vectors(model.params.embedding.table, corpus.vocab, cfg.model.embeddings);
    spdlog::info("embeddings: {} of {} vocabulary words found in {}", found, corpus.vocab.size(),
                 cfg.model.embeddings);
  }
  const bool train_embeddings = !cfg.model.freeze_embeddings;
  const std::filesystem::path dir(options.output_dir);
  const std::string model_path = options.output_dir.empty() ? "" : (dir / "model.han").string();
  const std::string metrics_path = options.output_dir.empty() ? "" : (dir / "metrics.jsonl").string();
  const std::string checkpoint_path = options.output_dir.empty() ? "" : (dir / "checkpoint.han").string();

  std::vector<Worker> workers(threads);
  for (Worker& w : workers) w.grads = zeros_like(model.params);
  auto param_refs = [&] {
    std::vector<ParamRef> refs = zip_params(model.params, workers[0].grads);
    if (!train_embeddings)
      refs.erase(std::remove_if(refs.begin(), refs.end(), [](const ParamRef& r) { return r.name == "embedding.table"; }),
                 refs.end());
    return refs;
  };
  std::vector<ParamRef> refs = param_refs();
  std::unique_ptr<Optimizer> optimizer = make_optimizer(cfg.optimizer, threads);

  TrainResult result;
  TrainState state;
  if (options.resume) {
    HAN_ASSERT(!checkpoint_path.empty());
    state = load_checkpoint(checkpoint_path, model, *optimizer, refs);
    refs = param_refs();  // model.params were replaced
    if (state.best_epoch > 0) result.best_params = load_classifier(model_path).params;
    spdlog::info("resuming at epoch {}, batch {} (step {})", state.epoch, state.next_batch + 1, optimizer->steps());
  }
  HanParams& params = model.params;

  const Batcher batcher(corpus.train, cfg.batching, derive_seed(cfg.trainer.seed, SeedStream::batches));
  result.skipped_empty = batcher.skipped_empty();
  if (batcher.documents() == 0) throw Error(cfg.data.train + ": every training document is empty");
  if (result.skipped_empty > 0 && !options.resume)
    spdlog::warn("{} empty training documents skipped (no words)", result.skipped_empty);
  const long long steps_per_epoch = (batcher.documents() + cfg.batching.batch_size - 1) / cfg.batching.batch_size;
  const long long total_steps = steps_per_epoch * cfg.trainer.epochs;
  const auto run_start = Clock::now();

  for (int epoch = state.epoch; epoch <= cfg.trainer.epochs; ++epoch) {
    if (epoch != state.epoch || state.history.size() >= static_cast<std::size_t>(epoch)) state.start_epoch(epoch);
    const auto epoch_start = Clock::now() - std::chrono::duration_cast<Clock::duration>(
                                                std::chrono::duration<double>(state.epoch_seconds));
    const std::vector<BatchIndices> batches = batcher.epoch(epoch);
    for (std::size_t bi = state.next_batch; bi < batches.size(); ++bi) {
      if (options.stop_requested && options.stop_requested()) {
        state.next_batch = bi;
        state.epoch_seconds = seconds_since(epoch_start);
        if (!checkpoint_path.empty()) save_checkpoint(checkpoint_path, model, *optimizer, refs, state);
        result.interrupted = true;
        result.checkpoint = checkpoint_path;
        result.history = state.history;
        result.best_epoch = state.best_epoch;
        result.last_params = params;
        result.seconds = seconds_since(run_start);
        return result;
      }
      const BatchIndices& indices = batches[bi];
      const std::vector<Batch> shards = make_shards(corpus.train, indices, threads);
      const Index B = static_cast<Index>(indices.size());
      Matrix dropout;
      if (cfg.model.dropout > 0) {
        Rng rng(derive_seed(cfg.trainer.seed, SeedStream::dropout, optimizer->steps()));
        dropout = dropout_mask(2 * cfg.model.sentence_hidden, B, cfg.model.dropout, rng);
      }
      std::vector<Index> first(shards.size() + 1, 0);
      for (std::size_t k = 0; k < shards.size(); ++k) first[k + 1] = first[k] + shards[k].size();
      run_parallel(static_cast<int>(shards.size()), [&](int k) {
        Worker& w = workers[k];
        const Matrix shard_dropout = dropout.size() ? Matrix(dropout.middleCols(first[k], shards[k].size())) : Matrix();
        const Matrix logits = han_forward(params, cfg.model, shards[k], shard_dropout, w.cache);
        Matrix d_logits;
        w.loss = softmax_cross_entropy(logits, shards[k].labels, 1.0 / static_cast<double>(B), d_logits);
        han_backward(params, w.cache, d_logits, w.grads, train_embeddings);
      });
      // Workers beyond the shard count hold stale caches: clear them before the reduction.
      for (std::size_t k = shards.size(); k < workers.size(); ++k) {
        workers[k].cache.token_ids.clear();
        workers[k].loss = 0;
      }
      reduce_gradients(workers);
      double batch_loss = 0;
      for (const Worker& w : workers) batch_loss += w.loss;
      batch_loss /= static_cast<double>(B);
      const double norm = clip_global_norm(refs, cfg.optimizer.clip_norm, threads);
      if (!std::isfinite(batch_loss) || !std::isfinite(norm)) {
        std::string message = numeric_fault(epoch, optimizer->steps() + 1, batch_loss, norm);
        if (!model_path.empty() && state.best_epoch > 0)
          message += "; the best model so far (epoch " + std::to_string(state.best_epoch) + ") is in " + model_path;
        throw Error(message, 1);
      }
      optimizer->step(refs, learning_rate(cfg.optimizer, optimizer->steps(), total_steps));
      zero_gradients(workers);

      state.loss_sum += batch_loss * static_cast<double>(B);
      state.docs_seen += B;
      for (const Batch& s : shards) {
        state.tokens_seen += s.real_tokens;
        state.sentences_seen += s.real_sentences;
        state.word_slots += s.word_mask.size();
        state.sentence_slots += s.sentence_mask.size();
      }
      if (options.on_batch) {
        TrainProgress p{epoch, cfg.trainer.epochs, static_cast<Index>(bi + 1), static_cast<Index>(batches.size()),
                        state.loss_sum / static_cast<double>(state.docs_seen), 0, seconds_since(epoch_start)};
        p.docs_per_second = static_cast<double>(state.docs_seen) / std::max(p.seconds, 1e-9);
        options.on_batch(p);
      }
    }
    EpochRecord rec;
    rec.epoch = epoch;
    rec.train_loss = state.loss_sum / static_cast<double>(std::max<Index>(state.docs_seen, 1));
    const double train_seconds = std::max(seconds_since(epoch_start), 1e-9);
    rec.docs_per_second = static_cast<double>(state.docs_seen) / train_seconds;
    rec.tokens_per_second = static_cast<double>(state.tokens_seen) / train_seconds;
    rec.padding_fraction =
        1.0 - static_cast<double>(state.tokens_seen) / static_cast<double>(std::max<Index>(state.word_slots, 1));
    rec.sentence_padding_fraction =
        1.0 - static_cast<double>(state.sentences_seen) / static_cast<double>(std::max<Index>(state.sentence_slots, 1));
    const DevScore dev = score_dev(params, cfg, corpus, threads);
    rec.dev_accuracy = dev.accuracy;
    rec.dev_macro_f1 = dev.macro_f1;
    rec.seconds = seconds_since(epoch_start);
    // Best epoch: dev accuracy (macro-F1 breaks ties); without a dev set, train loss.
    const double score = corpus.dev.empty() ? -rec.train_loss : dev.accuracy + 1e-6 * dev.macro_f1;
    rec.best = score > state.best_score;
    if (rec.best) {
      state.best_score = score;
      state.best_epoch = epoch;
      result.best_params = params;
      state.epochs_without_gain = 0;
      if (!model_path.empty())
        save_classifier(model_path, model, {{"trained", {{"best_epoch", epoch}, {"dev_accuracy", rec.to_json()["dev_accuracy"]}}}});
    } else {
      ++state.epochs_without_gain;
    }
    state.history.push_back(rec);
    if (!metrics_path.empty()) write_file_atomically(metrics_path, metrics_text(state.history));
    if (options.on_epoch) options.on_epoch(rec);
    if (cfg.trainer.patience > 0 && state.epochs_without_gain >= cfg.trainer.patience && epoch < cfg.trainer.epochs) {
      result.stopped_early = true;
      spdlog::info("early stop: no dev improvement for {} epochs", state.epochs_without_gain);
      break;
    }
  }
  if (!checkpoint_path.empty()) std::filesystem::remove(checkpoint_path);  // the run is complete
  result.history = state.history;
  result.best_epoch = state.best_epoch;
  result.last_params = params;
  result.seconds = seconds_since(run_start);
  return result;
}

}  // namespace han
