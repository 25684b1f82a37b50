#include "han/train/trainer.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>

#include "han/core/error.h"
#include "han/core/hash.h"
#include "han/core/io.h"
#include "han/core/mapped_file.h"
#include "han/core/parallel.h"
#include "han/core/random.h"
#include "han/core/select_metric.h"
#include "han/infer/classifier.h"
#include "han/infer/evaluation.h"
#include "han/nn/kernels.h"
#include "han/text/batcher.h"
#include "han/text/pretrained_vectors.h"
#include "han/train/checkpoint.h"
#include "han/train/gradient_workers.h"
#include "han/train/init_model.h"
#include "han/train/linear_member_training.h"
#include "han/train/linear_weight.h"
#include "han/train/optimizer.h"
#include "han/train/run_folder.h"

namespace han {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string numeric_fault(int epoch, long long step, double loss, double norm) {
  const bool bad_loss = !std::isfinite(loss);
  const double value = bad_loss ? loss : norm;
  return "training diverged at epoch " + std::to_string(epoch) + ", step " + std::to_string(step) + ": " +
         (bad_loss ? "the loss" : "the gradient norm") + " is " + (std::isnan(value) ? "NaN" : "infinite") +
         " (try a smaller optimizer.lr, or optimizer.clip_norm)";
}

std::string metrics_text(const std::vector<EpochRecord>& history) {
  std::string out;
  for (const EpochRecord& r : history) out += r.to_json().dump() + "\n";
  return out;
}

// --log-level debug: what one step computed and how long it took.
void log_step(int epoch, std::size_t batch, std::size_t batches, long long step, Index B, const BatchCounts& counts,
              Clock::time_point start) {
  const Index S = counts.sentence_slots / std::max<Index>(B, 1), W = counts.word_slots / std::max<Index>(S * B, 1);
  spdlog::debug("epoch {} batch {}/{} (step {}): {} x {} x {} (B x S x W), {} real tokens, {:.3f} s", epoch, batch,
                batches, step, B, S, W, counts.real_tokens, seconds_since(start));
}

Classifier initial_model(const Config& cfg, const Corpus& corpus) {
  Rng rng(derive_seed(cfg.trainer.seed, SeedStream::init));
  const Index outputs = head_outputs(cfg.model.task, corpus.labels.size());
  Classifier model{cfg, corpus.vocab, corpus.labels,
                   han_init(cfg.model, static_cast<Index>(corpus.vocab.size()), outputs, rng), {},
                   initial_head(cfg.model.task, corpus.labels.size(), corpus.targets)};
  if (cfg.model.task == Task::multilabel) start_at_label_rates(model.params.output.b, label_rates(corpus));
  return model;
}

// One training run: the model with its optimizer and gradient workers, and the progress a
// checkpoint carries. run() is the loop of epochs; the steps below are its parts.
class TrainingRun {
 public:
  TrainingRun(const Config& cfg, const Corpus& corpus, const TrainOptions& options);
  TrainResult run();

 private:
  std::vector<ParamRef> trained_refs();
  void restore_checkpoint();
  void require_same_start() const;
  bool stop_asked_here() const { return options_.stop_requested && options_.stop_requested(); }
  // Whether to stop now: asked of this process or, in a distributed run, of any rank.
  bool stop_requested() const { return job_.any(stop_asked_here()); }
  bool writes() const { return job_.rank() == 0 && !files_.folder.empty(); }
  void save_progress(std::size_t next_batch, Clock::time_point epoch_start);
  bool run_epoch(int epoch, Clock::time_point epoch_start);
  void train_step(const BatchIndices& indices, int epoch, std::size_t batch, std::size_t batches);
  std::vector<Batch> rank_shards(const BatchIndices& indices) const;
  void report_batch(int epoch, std::size_t done, std::size_t batches, Clock::time_point epoch_start) const;
  enum class EpochEnd { next, early_stop, interrupted };
  EpochEnd finish_epoch(int epoch, Clock::time_point epoch_start);
  std::optional<EpochRecord> measure_epoch(int epoch, Clock::time_point epoch_start) const;
  std::optional<TaskScores> score_dev() const;
  void log_exchange(int epoch) const;
  void log_cache_memory(int epoch) const;
  void keep_if_best(EpochRecord& rec);
  bool lower_dev_loss_than_best(const EpochRecord& rec) const;
  double epoch_score(const EpochRecord& rec) const;
  TrainResult finish(bool interrupted, bool stopped_early, Clock::time_point run_start);
  LinearMemberResult add_linear_member() const;
  std::optional<TaskScores> score_with_linear_member(const LinearMemberResult& linear, const OutputHead& head) const;
  void record_answers(const TaskScores& dev) const;
  bool calibrates() const {
    return calibrates_on_dev(cfg_, options_.calibrate, corpus_.dev);
  }

  const Config cfg_;  // with the corpus's caps (auto resolved)
  const Corpus& corpus_;
  const TrainOptions& options_;
  SingleProcess alone_;
  Collective& job_;
  const RunFiles files_;  // read by every rank (--resume), written by rank 0
  const int threads_;
  const bool train_embeddings_;
  Classifier model_;
  GradientWorkers workers_;
  std::unique_ptr<Optimizer> optimizer_;
  std::vector<ParamRef> refs_;  // the parameters the optimizer updates, with their gradients
  TrainState state_;
  HanParams best_params_;
  const Batcher batcher_;
  const std::vector<BatchIndices> dev_batches_;
  // Whether each rank computes only the documents of its own share (a distributed run with
  // MPI's allreduce; the exact sum needs one process's cut of every batch), and its shares.
  const bool shares_data_;
  const RankShare train_share_, dev_share_;
  long long total_steps_ = 0;
};

TrainingRun::TrainingRun(const Config& cfg, const Corpus& corpus, const TrainOptions& options)
    : cfg_(with_corpus_tokenizer(cfg, corpus)),
      corpus_(corpus),
      options_(options),
      job_(options.job ? *options.job : alone_),
      files_(run_files(options.output_dir)),
      threads_(resolve_threads(cfg.trainer.threads)),
      train_embeddings_(!frozen_embeddings(cfg)),
      model_(initial_model(without_linear_member(cfg_), corpus)),  // the linear member comes last
      workers_(model_.params, threads_, cfg.trainer.allreduce, cfg.trainer.overlap),
      optimizer_(make_optimizer(cfg.optimizer, threads_)),
      batcher_(corpus.train, cfg.batching, derive_seed(cfg.trainer.seed, SeedStream::batches)),
      dev_batches_(scoring_batches(corpus.dev, cfg)),
      shares_data_(job_.ranks() > 1 && cfg.trainer.allreduce == AllreduceMode::mpi),
      train_share_(rank_share(corpus.train.size(), job_.rank(), job_.ranks())),
      dev_share_(rank_share(corpus.dev.size(), job_.rank(), job_.ranks())) {
  if (options.parent && !options.resume) start_from_parent(model_, *options.parent);
  if (!cfg.model.embeddings.empty() && !options.resume) {
    const bool shared = pretrains_embeddings(cfg.model) && !options.pretrained_vectors.empty();
    const std::string vectors = shared ? options.pretrained_vectors : embeddings_file(cfg, files_);
    const std::size_t found = load_pretrained_vectors(model_.params.embedding.table, corpus.vocab, vectors);
    spdlog::info("embeddings: {} of {} vocabulary words found in {}", found, corpus.vocab.size(), vectors);
    // Not an error: under mpirun only rank 0 reads stdin, and the ranks' start is compared later.
    if (found == 0) spdlog::warn("embeddings: {} gives no vocabulary word a vector (is it empty?)", vectors);
    if (!train_embeddings_ && cfg.model.freeze_embeddings == Switch::auto_ && cfg.optimizer.embedding_lr_scale > 0)
      spdlog::info("embeddings: kept fixed in training (freeze_embeddings auto: pretrained on data.unlabeled too)");
  }
  refs_ = trained_refs();
  if (options.resume) restore_checkpoint();
  require_same_start();
  if (batcher_.documents() == 0) throw JobWideError(cfg.data.train + ": every training document is empty");
  if (batcher_.skipped_empty() > 0 && !options.resume)
    spdlog::warn("{} empty training documents skipped (no words)", batcher_.skipped_empty());
  const long long steps_per_epoch = (batcher_.documents() + cfg.batching.batch_size - 1) / cfg.batching.batch_size;
  total_steps_ = steps_per_epoch * cfg.trainer.epochs;
}

std::vector<ParamRef> TrainingRun::trained_refs() {
  std::vector<ParamRef> refs = zip_params(model_.params, workers_.grads());
  const auto is_embedding = [](const ParamRef& r) { return r.name == kEmbeddingTable; };
  if (!train_embeddings_) refs.erase(std::remove_if(refs.begin(), refs.end(), is_embedding), refs.end());
  // Empty tensors (the bag term when off) have nothing to train or checkpoint.
  refs.erase(std::remove_if(refs.begin(), refs.end(), [](const ParamRef& r) { return r.value->size() == 0; }), refs.end());
  for (ParamRef& r : refs)
    if (is_embedding(r)) {
      r.lr_scale = cfg_.optimizer.embedding_lr_scale;
      if (cfg_.optimizer.lazy_embeddings) r.columns = &workers_.step_columns();
    } else if (r.name.rfind("bag.", 0) == 0) r.lr_scale = cfg_.optimizer.bag_lr_scale;
  return refs;
}

// Ranks that start from different parameters (another embeddings file or checkpoint at
// the same path on another machine) would train apart without noticing: refused.
void TrainingRun::require_same_start() const {
  if (job_.ranks() == 1) return;
  Fnv1a hash;
  HanParams::fields(model_.params, [&](const std::string&, const Matrix& m) {
    hash.add(m.data(), static_cast<std::size_t>(m.size()) * sizeof(Scalar));
  });
  const std::vector<std::uint64_t> all = job_.all_gather(hash.value());
  for (std::size_t r = 1; r < all.size(); ++r)
    if (all[r] != all[0])
      throw JobWideError("rank " + std::to_string(r) + " starts from other parameters than rank 0 (" +
                         (options_.resume ? "its checkpoint" : "its embeddings file") +
                         " differs): every rank must read the same files");
}

void TrainingRun::restore_checkpoint() {
  HAN_ASSERT(!files_.checkpoint.empty());
  state_ = load_checkpoint(files_.checkpoint, model_, *optimizer_, refs_);
  refs_ = trained_refs();  // model_.params were replaced
  if (state_.best_epoch > 0) best_params_ = load_classifier(files_.model).params;
  if (state_.next_batch < batcher_.epoch(state_.epoch).size())
    spdlog::info("resuming at epoch {}, batch {} (step {})", state_.epoch, state_.next_batch + 1, optimizer_->steps());
  else
    spdlog::info("resuming at epoch {}'s dev scoring (step {})", state_.epoch, optimizer_->steps());
}

TrainResult TrainingRun::run() {
  const auto run_start = Clock::now();
  bool interrupted = false, stopped_early = false;
  for (int epoch = state_.epoch; epoch <= cfg_.trainer.epochs && !interrupted && !stopped_early; ++epoch) {
    if (epoch != state_.epoch || state_.history.size() >= static_cast<std::size_t>(epoch)) state_.start_epoch(epoch);
    // A resumed epoch's clock starts the time it had already run before now.
    const auto epoch_start = Clock::now() - std::chrono::duration_cast<Clock::duration>(
                                                std::chrono::duration<double>(state_.epoch_seconds));
    const EpochEnd end = run_epoch(epoch, epoch_start) ? finish_epoch(epoch, epoch_start) : EpochEnd::interrupted;
    interrupted = end == EpochEnd::interrupted;
    stopped_early = end == EpochEnd::early_stop;
  }
  return finish(interrupted, stopped_early, run_start);
}

// The checkpoint (when there is a run folder) of the epoch in progress, to continue at
// batch `next_batch` (the epoch's batch count: at its dev scoring).
void TrainingRun::save_progress(std::size_t next_batch, Clock::time_point epoch_start) {
  state_.next_batch = next_batch;
  state_.epoch_seconds = seconds_since(epoch_start);
  if (writes()) save_checkpoint(files_.checkpoint, model_, *optimizer_, refs_, state_);
}

// Runs the epoch's batches from state_.next_batch on. When a stop is requested, saves
// the progress and returns false.
bool TrainingRun::run_epoch(int epoch, Clock::time_point epoch_start) {
  const std::vector<BatchIndices> batches = batcher_.epoch(epoch);
  const auto steps_start = Clock::now();
  const std::uint64_t flop_before = gemm_flop_count();
  for (std::size_t bi = state_.next_batch; bi < batches.size(); ++bi) {
    if (stop_requested()) {
      save_progress(bi, epoch_start);
      return false;
    }
    train_step(batches[bi], epoch, bi + 1, batches.size());
    report_batch(epoch, bi + 1, batches.size(), epoch_start);
  }
  state_.next_batch = batches.size();
  // What bench/bench.py reads to give training's share of the hardware's peak.
  const double gflop = static_cast<double>(gemm_flop_count() - flop_before) / 1e9;
  const double seconds = std::max(seconds_since(steps_start), 1e-9);
  spdlog::debug("epoch {}: the training steps ran {:.2f} GFLOP of matrix products in {:.3f} s ({:.1f} GFLOP/s)", epoch,
                gflop, seconds, gflop / seconds);
  return true;
}

// One optimizer step on batch `batch` of `batches`; a non-finite loss or gradient ends
// the run (exit 1).
void TrainingRun::train_step(const BatchIndices& indices, int epoch, std::size_t batch, std::size_t batches) {
  const auto start = Clock::now();
  const std::vector<Batch> shards = rank_shards(indices);
  const Index B = static_cast<Index>(indices.size());
  const DropoutPlan dropout =
      dropout_plan(cfg_.model, derive_seed(cfg_.trainer.seed, SeedStream::dropout, optimizer_->steps()));
  const double loss =
      workers_.compute(model_.params, cfg_.model, shards, dropout, B, train_embeddings_, job_, model_.head, cfg_.loss);
  const double norm = clip_global_norm(refs_, cfg_.optimizer.clip_norm, threads_);
  if (!std::isfinite(loss) || !std::isfinite(norm)) {
    std::string message = numeric_fault(epoch, optimizer_->steps() + 1, loss, norm);
    if (!files_.model.empty() && state_.best_epoch > 0)
      message += "; the best model so far (epoch " + std::to_string(state_.best_epoch) + ") is in " + files_.model;
    throw JobWideError(message, 1);  // every rank holds the same loss and gradient
  }
  optimizer_->step(refs_, learning_rate(cfg_.optimizer, optimizer_->steps(), total_steps_));
  workers_.zero();

  state_.loss_sum += loss * static_cast<double>(B);
  state_.docs_seen += B;
  const BatchCounts counts = batch_counts(corpus_.train, indices);  // the whole batch's, on every rank
  state_.tokens_seen += counts.real_tokens;
  state_.sentences_seen += counts.real_sentences;
  state_.word_slots += counts.word_slots;
  state_.sentence_slots += counts.sentence_slots;
  if (spdlog::should_log(spdlog::level::debug)) log_step(epoch, batch, batches, optimizer_->steps(), B, counts, start);
}

// This rank's shards of the batch, one per thread at most. Sharing the data, the rank
// takes the batch's documents of its own share; else the batch is cut as one process with
// ranks x threads threads cuts it, and rank r takes shards rT .. rT+T-1.
std::vector<Batch> TrainingRun::rank_shards(const BatchIndices& indices) const {
  if (shares_data_) return make_share_shards(corpus_.train, indices, train_share_.first, train_share_.last, threads_);
  std::vector<Batch> all = make_shards(corpus_.train, indices, threads_ * job_.ranks());
  const std::size_t first = std::min(all.size(), static_cast<std::size_t>(job_.rank() * threads_));
  const std::size_t last = std::min(all.size(), first + static_cast<std::size_t>(threads_));
  return {std::make_move_iterator(all.begin() + first), std::make_move_iterator(all.begin() + last)};
}

void TrainingRun::report_batch(int epoch, std::size_t done, std::size_t batches, Clock::time_point epoch_start) const {
  if (!options_.on_batch) return;
  TrainProgress p{epoch, cfg_.trainer.epochs, static_cast<Index>(done), static_cast<Index>(batches),
                  state_.loss_sum / static_cast<double>(state_.docs_seen), 0, seconds_since(epoch_start)};
  p.docs_per_second = static_cast<double>(state_.docs_seen) / std::max(p.seconds, 1e-9);
  options_.on_batch(p);
}

// Closes an epoch: its record (with the dev score), the best-epoch bookkeeping,
// metrics.jsonl and on_epoch; early_stop when patience has run out. A stop requested
// during the dev scoring cuts it short: the progress is saved to score again on resume.
TrainingRun::EpochEnd TrainingRun::finish_epoch(int epoch, Clock::time_point epoch_start) {
  std::optional<EpochRecord> rec = measure_epoch(epoch, epoch_start);
  if (!rec) {
    save_progress(state_.next_batch, epoch_start);
    return EpochEnd::interrupted;
  }
  keep_if_best(*rec);
  state_.history.push_back(*rec);
  if (writes()) write_file_atomically(files_.metrics, metrics_text(state_.history));
  log_exchange(epoch);
  log_cache_memory(epoch);
  if (options_.on_epoch) options_.on_epoch(*rec);
  const bool stop = cfg_.trainer.patience > 0 && state_.epochs_without_gain >= cfg_.trainer.patience &&
                    epoch < cfg_.trainer.epochs;
  if (stop) spdlog::info("early stop: no dev improvement for {} epochs", state_.epochs_without_gain);
  return stop ? EpochEnd::early_stop : EpochEnd::next;
}

// The epoch's record, or nothing when a stop was requested during its dev scoring.
std::optional<EpochRecord> TrainingRun::measure_epoch(int epoch, Clock::time_point epoch_start) const {
  EpochRecord rec;
  rec.epoch = epoch;
  rec.train_loss = state_.loss_sum / static_cast<double>(std::max<Index>(state_.docs_seen, 1));
  const double train_seconds = std::max(seconds_since(epoch_start), 1e-9);
  rec.docs_per_second = static_cast<double>(state_.docs_seen) / train_seconds;
  rec.tokens_per_second = static_cast<double>(state_.tokens_seen) / train_seconds;
  rec.padding_fraction =
      1.0 - static_cast<double>(state_.tokens_seen) / static_cast<double>(std::max<Index>(state_.word_slots, 1));
  rec.sentence_padding_fraction =
      1.0 - static_cast<double>(state_.sentences_seen) / static_cast<double>(std::max<Index>(state_.sentence_slots, 1));
  if (!corpus_.dev.empty()) {
    spdlog::debug("epoch {}: scoring {} dev documents", epoch, corpus_.dev.size());
    const auto start = Clock::now();
    const std::optional<TaskScores> dev = score_dev();
    if (!dev) return std::nullopt;
    spdlog::debug("epoch {}: dev scoring took {:.2f} s", epoch, seconds_since(start));
    rec.set_dev(dev->headline());
  }
  rec.seconds = seconds_since(epoch_start);
  return rec;
}

// The dev scores, or nothing when a stop was requested meanwhile. A process alone cuts
// the scoring short at once; the ranks of a job each score a part of the dev batches
// (without stopping halfway, so none waits for another) and sum their answers: the
// documents of their own share when they share the data, else every ranks-th batch.
std::optional<TaskScores> TrainingRun::score_dev() const {
  Predictor predictor(model_.params, cfg_.model, threads_, model_.head);
  if (job_.ranks() == 1) {
    predictor.on_progress([this](Index) { return !stop_asked_here(); });
    const TaskScores dev = evaluate_task(predictor, corpus_.dev, dev_batches_);
    if (stop_asked_here()) return std::nullopt;  // (cut short: dev is not a score)
    return dev;
  }
  std::vector<BatchIndices> share;
  if (shares_data_) share = batches_within(dev_batches_, dev_share_.first, dev_share_.last);
  for (std::size_t b = static_cast<std::size_t>(job_.rank()); !shares_data_ && b < dev_batches_.size();
       b += static_cast<std::size_t>(job_.ranks()))
    share.push_back(dev_batches_[b]);
  Matrix probabilities = predictor.predict(corpus_.dev, share);
  job_.sum(probabilities.data(), static_cast<std::size_t>(probabilities.size()));
  if (stop_requested()) return std::nullopt;
  return score_answers(model_.head, probabilities, corpus_.dev);
}

// A distributed run's cost of talking, per step of the epoch's steps so far.
void TrainingRun::log_exchange(int epoch) const {
  const ExchangeStats& x = workers_.exchange();
  if (job_.ranks() == 1 || x.steps == 0) return;
  const double steps = static_cast<double>(x.steps);
  // Overlapped, the wait for the slowest rank is inside the sum's time.
  const std::string summing =
      x.overlapped ? fmt::format("{:.2f} ms summing and waiting for the slowest rank beyond what the backward pass hid",
                                 1e3 * x.seconds / steps)
                   : fmt::format("{:.2f} ms summing, {:.2f} ms waiting for the slowest rank", 1e3 * x.seconds / steps,
                                 1e3 * x.wait_seconds / steps);
  spdlog::info("epoch {}: gradient exchange between {} ranks, per step: {:.3f} MB, {}, {:.2f} ms computing (mean of {} "
               "steps so far)",
               epoch, job_.ranks(), x.bytes / steps / 1e6, summing, 1e3 * x.compute_seconds / steps, x.steps);
  if (!x.overlapped) return;
  std::string stages;
  for (BackwardStage stage : kBackwardStages)
    stages += fmt::format("{}{} {:.2f} ms", stages.empty() ? "" : ", ", to_string(stage),
                          1e3 * x.stage_seconds[static_cast<std::size_t>(stage)] / steps);
  spdlog::debug("epoch {}: backward stages per step (the first with the forward pass): {}", epoch, stages);
}

// What sharing the data saves: the part of the mapped token cache this process has read
// (info in a distributed run, debug alone).
void TrainingRun::log_cache_memory(int epoch) const {
  if (!corpus_.cache_file) return;
  spdlog::log(job_.ranks() > 1 ? spdlog::level::info : spdlog::level::debug,
              "epoch {}: this process holds {:.1f} MB of the {:.1f} MB token cache in memory", epoch,
              static_cast<double>(corpus_.cache_file->resident_bytes()) / 1e6,
              static_cast<double>(corpus_.cache_file->size()) / 1e6);
}

// Higher is better; an undefined score (a constant prediction's correlation) ranks below
// every defined one.
double TrainingRun::epoch_score(const EpochRecord& rec) const {
  if (corpus_.dev.empty()) return -rec.train_loss;
  const SelectMetric metric = resolve_select_metric(cfg_.trainer.select, cfg_.model.task);
  double score;
  if (cfg_.model.task == Task::single && metric == SelectMetric::accuracy)
    score = rec.dev_accuracy + 1e-6 * rec.dev_macro_f1;
  else if (cfg_.model.task == Task::single && metric == SelectMetric::macro_f1)
    score = rec.dev_macro_f1 + 1e-6 * rec.dev_accuracy;
  else
    score = lower_is_better(metric) ? -rec.dev(to_string(metric)) : rec.dev(to_string(metric));
  return std::isnan(score) ? std::numeric_limits<double>::lowest() : score;
}

// Whether rec's dev loss is below the best epoch's: what breaks a tie of scores.
bool TrainingRun::lower_dev_loss_than_best(const EpochRecord& rec) const {
  for (const EpochRecord& e : state_.history)
    if (e.epoch == state_.best_epoch) return rec.dev_loss < e.dev_loss;
  return false;
}

// Best epoch: the dev score trainer.select names (accuracy and macro-F1 break each
// other's ties, then the lower dev loss); without a dev set, train loss. A new best is
// kept in memory and written to model.han.
void TrainingRun::keep_if_best(EpochRecord& rec) {
  const double score = epoch_score(rec);
  rec.best = score > state_.best_score || (score == state_.best_score && lower_dev_loss_than_best(rec));
  if (!rec.best) {
    ++state_.epochs_without_gain;
    return;
  }
  state_.best_score = score;
  state_.best_epoch = rec.epoch;
  state_.epochs_without_gain = 0;
  best_params_ = model_.params;
  if (writes()) {
    nlohmann::json trained = {{"best_epoch", rec.epoch}};
    trained.update(rec.dev_scores_record());
    save_classifier(files_.model, model_, {{"trained", trained}});
  }
}

// The one way out, whether the run completed, stopped early or was interrupted.
TrainResult TrainingRun::finish(bool interrupted, bool stopped_early, Clock::time_point run_start) {
  TrainResult r;
  r.interrupted = interrupted;
  r.stopped_early = stopped_early;
  r.head = model_.head;
  if (interrupted)
    r.checkpoint = files_.checkpoint;
  else if (writes())
    std::filesystem::remove(files_.checkpoint);  // the run is complete
  if (!interrupted && cfg_.model.linear_member) r.linear = add_linear_member();
  if (!interrupted && writes() && calibrates())
    r.calibration = calibrate_model_file(files_.model, corpus_.dev, threads_, r.head);
  // Scored once calibrated, as the model file predicts.
  if (!interrupted && cfg_.model.linear_member) r.dev_with_linear = score_with_linear_member(r.linear, r.head);
  if (r.dev_with_linear && writes()) record_answers(*r.dev_with_linear);
  r.history = state_.history;
  r.best_epoch = state_.best_epoch;
  r.skipped_empty = batcher_.skipped_empty();
  r.best_params = std::move(best_params_);
  r.last_params = std::move(model_.params);
  r.seconds = seconds_since(run_start);
  return r;
}

// model.linear_member: trained once the HAN is, and written into model.han beside it, by
// rank 0 alone (the other ranks' model is never written or scored).
LinearMemberResult TrainingRun::add_linear_member() const {
  if (job_.rank() != 0) return {};
  LinearMemberResult linear =
      train_weighted_linear_member(cfg_, corpus_, {&best_params_}, model_.head, dev_batches_, calibrates(),
                                   continued_linear_member(options_.parent, cfg_, corpus_.labels));
  if (writes()) {
    nlohmann::json header;
    Classifier c = load_classifier(files_.model, nullptr, &header);
    attach_linear_member(c, linear);
    header["trained"]["linear_member"] = linear.to_json();
    save_classifier(files_.model, c, header);
  }
  return linear;
}

// Writes the dev scores of the model as it answers (the HAN and its linear member,
// calibrated) into model.han's trained record as "answers": the record's own scores are
// the HAN's alone, at its best epoch.
void TrainingRun::record_answers(const TaskScores& dev) const {
  nlohmann::json header;
  const Classifier c = load_classifier(files_.model, nullptr, &header);
  header["trained"]["answers"] = EpochRecord::of_dev(dev.headline()).dev_scores_record();
  save_classifier(files_.model, c, header);
}

// The dev scores of the HAN and its linear member together, with `head` (rank 0, with a dev set).
std::optional<TaskScores> TrainingRun::score_with_linear_member(const LinearMemberResult& linear,
                                                                const OutputHead& head) const {
  if (job_.rank() != 0 || corpus_.dev.empty()) return std::nullopt;
  TaskScores dev = evaluate_task(Predictor({&best_params_}, cfg_.model, threads_, head, linear.weighted()), corpus_.dev,
                                 dev_batches_);
  std::string scores;
  for (const auto& [name, value] : dev.headline()) scores += fmt::format(" {} {:.4f}", name, value);
  spdlog::info("with the linear member: dev{}", scores);
  return dev;
}

}  // namespace

TrainResult train_model(const Config& cfg, const Corpus& corpus, const TrainOptions& options) {
  return TrainingRun(cfg, corpus, options).run();
}

}  // namespace han
