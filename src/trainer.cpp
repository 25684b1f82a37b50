#include "han/trainer.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>

#include "han/batcher.h"
#include "han/classifier.h"
#include "han/error.h"
#include "han/io.h"
#include "han/loss.h"
#include "han/metrics.h"
#include "han/optimizer.h"
#include "han/parallel.h"
#include "han/parameters.h"
#include "han/predictor.h"
#include "han/random.h"

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
  const Predictor predictor(params, cfg.model, threads);
  // Dev batches padded as training batches are, so an unmasked model is scored as it behaves.
  const Matrix probs = predictor.predict(
      corpus.dev, evaluation_batches(corpus.dev, cfg.batching.strategy, cfg.batching.batch_size,
                                     derive_seed(cfg.trainer.seed, 4)));
  std::vector<std::int32_t> gold;
  for (const Document& d : corpus.dev) gold.push_back(d.label);
  const Metrics m = compute_metrics(gold, argmax_columns(probs), corpus.labels.size());
  s.accuracy = m.accuracy;
  s.macro_f1 = m.macro_f1;
  return s;
}

std::string numeric_fault(int epoch, long long step, double loss, double norm) {
  return "training diverged at epoch " + std::to_string(epoch) + ", step " + std::to_string(step) +
         ": " + (std::isfinite(loss) ? "gradient norm" : "loss") + " is " +
         std::to_string(std::isfinite(loss) ? norm : loss) +
         " (try a smaller optimizer.lr or optimizer.clip_norm)";
}

}  // namespace

TrainResult train_model(const Config& cfg, const Corpus& corpus, const TrainOptions& options) {
  const int threads = resolve_threads(cfg.trainer.threads);
  const Index classes = static_cast<Index>(corpus.labels.size());
  Rng init_rng(derive_seed(cfg.trainer.seed, 1));
  Classifier model{cfg, corpus.vocab, corpus.labels,
                   han_init(cfg.model, static_cast<Index>(corpus.vocab.size()), classes, init_rng)};
  HanParams& params = model.params;
  if (!cfg.model.embeddings.empty()) {
    const std::size_t found = load_pretrained_embeddings(params.embedding, corpus.vocab, cfg.model.embeddings);
    spdlog::info("embeddings: {} of {} vocabulary words found in {}", found, corpus.vocab.size(),
                 cfg.model.embeddings);
  }
  const bool train_embeddings = !cfg.model.freeze_embeddings;

  std::vector<Worker> workers(threads);
  for (Worker& w : workers) w.grads = zeros_like(params);
  std::vector<ParamRef> refs = zip_params(params, workers[0].grads);
  if (!train_embeddings)
    refs.erase(std::remove_if(refs.begin(), refs.end(), [](const ParamRef& r) { return r.name == "embedding.table"; }),
               refs.end());
  std::unique_ptr<Optimizer> optimizer = make_optimizer(cfg.optimizer);

  const Batcher batcher(corpus.train, cfg.batching, derive_seed(cfg.trainer.seed, 2));
  TrainResult result;
  result.skipped_empty = batcher.skipped_empty();
  if (batcher.documents() == 0) throw Error(cfg.data.train + ": every training document is empty");
  if (result.skipped_empty > 0)
    spdlog::warn("{} empty training documents skipped (no words)", result.skipped_empty);
  const long long steps_per_epoch = (batcher.documents() + cfg.batching.batch_size - 1) / cfg.batching.batch_size;
  const long long total_steps = steps_per_epoch * cfg.trainer.epochs;

  const std::string model_path =
      options.output_dir.empty() ? "" : (std::filesystem::path(options.output_dir) / "model.han").string();
  const std::string metrics_path =
      options.output_dir.empty() ? "" : (std::filesystem::path(options.output_dir) / "metrics.jsonl").string();
  std::string metrics_lines;
  double best_score = -std::numeric_limits<double>::infinity();
  int epochs_without_gain = 0;
  const auto run_start = Clock::now();

  for (int epoch = 1; epoch <= cfg.trainer.epochs; ++epoch) {
    const auto epoch_start = Clock::now();
    const std::vector<BatchIndices> batches = batcher.epoch(epoch);
    double loss_sum = 0;
    Index docs_seen = 0, tokens_seen = 0, word_slots = 0, sentence_slots = 0, sentences_seen = 0;
    for (std::size_t bi = 0; bi < batches.size(); ++bi) {
      const BatchIndices& indices = batches[bi];
      const std::vector<Batch> shards = make_shards(corpus.train, indices, threads);
      const Index B = static_cast<Index>(indices.size());
      Matrix dropout;
      if (cfg.model.dropout > 0) {
        Rng rng(derive_seed(cfg.trainer.seed, 3, optimizer->steps()));
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
      const double norm = clip_global_norm(refs, cfg.optimizer.clip_norm);
      if (!std::isfinite(batch_loss) || !std::isfinite(norm)) {
        std::string message = numeric_fault(epoch, optimizer->steps() + 1, batch_loss, norm);
        if (!model_path.empty() && result.best_epoch > 0)
          message += "; the best model so far (epoch " + std::to_string(result.best_epoch) + ") is in " + model_path;
        throw Error(message, 1);
      }
      optimizer->step(refs, learning_rate(cfg.optimizer, optimizer->steps(), total_steps));
      zero_gradients(workers);

      loss_sum += batch_loss * static_cast<double>(B);
      docs_seen += B;
      for (const Batch& s : shards) {
        tokens_seen += s.real_tokens;
        sentences_seen += s.real_sentences;
        word_slots += s.word_mask.size();
        sentence_slots += s.sentence_mask.size();
      }
      if (options.on_batch) {
        TrainProgress p{epoch, cfg.trainer.epochs, static_cast<Index>(bi + 1), static_cast<Index>(batches.size()),
                        loss_sum / static_cast<double>(docs_seen), 0, seconds_since(epoch_start)};
        p.docs_per_second = static_cast<double>(docs_seen) / std::max(p.seconds, 1e-9);
        options.on_batch(p);
      }
    }
    EpochRecord rec;
    rec.epoch = epoch;
    rec.train_loss = loss_sum / static_cast<double>(std::max<Index>(docs_seen, 1));
    const double train_seconds = seconds_since(epoch_start);
    rec.docs_per_second = static_cast<double>(docs_seen) / train_seconds;
    rec.tokens_per_second = static_cast<double>(tokens_seen) / train_seconds;
    rec.padding_fraction = 1.0 - static_cast<double>(tokens_seen) / static_cast<double>(std::max<Index>(word_slots, 1));
    rec.sentence_padding_fraction =
        1.0 - static_cast<double>(sentences_seen) / static_cast<double>(std::max<Index>(sentence_slots, 1));
    const DevScore dev = score_dev(params, cfg, corpus, threads);
    rec.dev_accuracy = dev.accuracy;
    rec.dev_macro_f1 = dev.macro_f1;
    rec.seconds = seconds_since(epoch_start);
    // Best epoch: dev accuracy (macro-F1 breaks ties); without a dev set, train loss.
    const double score = corpus.dev.empty() ? -rec.train_loss : dev.accuracy + 1e-6 * dev.macro_f1;
    rec.best = score > best_score;
    if (rec.best) {
      best_score = score;
      result.best_epoch = epoch;
      result.best_params = params;
      epochs_without_gain = 0;
      if (!model_path.empty())
        save_classifier(model_path, model, {{"trained", {{"best_epoch", epoch}, {"dev_accuracy", rec.to_json()["dev_accuracy"]}}}});
    } else {
      ++epochs_without_gain;
    }
    result.history.push_back(rec);
    if (!metrics_path.empty()) {
      metrics_lines += rec.to_json().dump() + "\n";
      write_file_atomically(metrics_path, metrics_lines);
    }
    if (options.on_epoch) options.on_epoch(rec);
    if (cfg.trainer.patience > 0 && epochs_without_gain >= cfg.trainer.patience && epoch < cfg.trainer.epochs) {
      result.stopped_early = true;
      spdlog::info("early stop: no dev improvement for {} epochs", epochs_without_gain);
      break;
    }
  }
  result.seconds = seconds_since(run_start);
  return result;
}

}  // namespace han
