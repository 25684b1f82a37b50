// han train --config FILE [--set key=value]... [--seeds N] [--init MODEL] [--output DIR] [--overwrite] | han train --resume DIR
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "commands.h"
#include "han/text/data_format.h"
#include "han/core/number_text.h"
#include "han/core/json_text.h"
#include "han/infer/classifier.h"
#include "han/text/corpus.h"
#include "han/core/error.h"
#include "han/infer/evaluation.h"
#include "han/train/calibration.h"
#include "han/train/ensemble.h"
#include "han/train/collective.h"
#include "han/train/init_model.h"
#include "han/train/pretraining.h"
#include "han/train/rank_agreement.h"
#include "han/train/run_folder.h"
#include "han/train/trainer.h"
#include "interrupts.h"
#include "logging.h"
#include "option_values.h"
#include "ranks.h"
#include "self_docs.h"
#include "training_progress.h"

namespace han::cli {
namespace {

struct TrainArgs {
  std::string data;  // the positional FILE: data.train
  std::string config;
  std::string resume;
  std::vector<std::string> overrides;
  std::string init;
  std::string output;
  int seeds = 0;  // 0: not given; else trainer.ensemble
  std::string encoding;  // --encoding: data.encoding
  bool overwrite = false;
  LogOptions log;
};

std::string default_output(const std::string& config_path) {
  return (std::filesystem::path("runs") / std::filesystem::path(config_path).stem()).string();
}

// --seeds N is short for --set trainer.ensemble=N (one of them, not both).
std::vector<std::string> with_seeds(const TrainArgs& a) {
  std::vector<std::string> overrides = a.overrides;
  if (a.seeds == 0) return overrides;
  for (const std::string& o : overrides)
    if (o.rfind("trainer.ensemble=", 0) == 0)
      throw han::Error("--seeds " + std::to_string(a.seeds) + " and --set " + o +
                       " both set the ensemble size: give one of them");
  overrides.push_back("trainer.ensemble=" + std::to_string(a.seeds));
  return overrides;
}

// Where a key's value came from, for messages: the last --set of it, else the config file.
std::string key_origin(const TrainArgs& a, const std::vector<std::string>& overrides, const std::string& key) {
  const std::string* o = han::last_override_of(overrides, key);
  return o ? "--set " + *o : a.config;
}

// A resumed run from a model checks that model against its config.json again. That config
// is the child's as it was merged, every key given: written the short way (config_to_json),
// a key at its default would be taken for unset and the parent's value put back.
PreparedRun reopen_run_from(const std::string& folder, bool writes, std::optional<Classifier>& parent) {
  PreparedRun run = reopen_run(folder, writes);
  parent = load_init_model(run.config);
  if (parent)
    run.config = inherit_from_parent(run.config, config_to_full_json(run.config), *parent,
                                     [&](const std::string&) { return run.files.config; });
  return run;
}

// What han does not combine (yet): each refused with the key to change.
void refuse_unsupported(const Config& cfg, int ranks) {
  // (Each rank would pretrain alone, with Hogwild threads: the ranks would start apart.)
  if (ranks > 1 && pretrains_embeddings(cfg.model))
    throw han::Error("model.embeddings: \"pretrain\" is not available under mpirun: train the vectors once with "
                     "han embed and give their file");
  if (ranks > 1 && cfg.trainer.ensemble > 1)
    throw han::Error("trainer.ensemble: ensembles are not trained under mpirun: train each member's seed as its own run");
  if (!cfg.trainer.init.empty() && cfg.trainer.ensemble > 1)
    throw han::Error("trainer.init: --init starts one model from another; it does not train an ensemble (trainer.ensemble 1)");
}

// The config file with the overrides, or without one the defaults with them; the data
// file given as an argument is data.train, as typed from the working folder.
Config given_config(const TrainArgs& a, std::vector<std::string> overrides, nlohmann::json& given) {
  if (!a.data.empty()) {
    require_utf8_path("the data file", a.data);
    const std::string path = a.config.empty() ? a.data : std::filesystem::absolute(a.data).lexically_normal().string();
    overrides.insert(overrides.begin(), "data.train=" + nlohmann::json(path).dump());
  }
  if (!a.config.empty()) return load_config_file(a.config, overrides, &given);
  const bool has_train = std::any_of(overrides.begin(), overrides.end(),
                                     [](const std::string& o) { return o.rfind("data.train=", 0) == 0; });
  if (!has_train)
    throw han::Error("train needs data: han train FILE (with the defaults), --config FILE, or --resume DIR");
  return config_from_given(nlohmann::json::object(), overrides, "the defaults", "", &given);
}

// The run to train, and in `parent` the model it starts from (--init, trainer.init). The
// rank that `writes` the run folder locks it.
PreparedRun prepare_run(const TrainArgs& a, int ranks, bool writes, std::optional<Classifier>& parent) {
  if (!a.config.empty() && !a.resume.empty()) throw han::Error("train takes --config FILE or --resume DIR, not both");
  if (!a.resume.empty()) refuse_finished_run(a.resume);  // before the flags: what was meant cannot be done
  if (!a.resume.empty() &&
      (!a.overrides.empty() || !a.init.empty() || !a.output.empty() || a.overwrite || a.seeds || !a.data.empty() ||
       !a.encoding.empty()))
    throw han::Error("--resume continues a run as it was configured: it takes no data file, --set, --seeds, --init, "
                     "--encoding, --output or --overwrite");
  // The folder is named in the JSON summary (its model path): refused before any work.
  if (!a.resume.empty()) {
    require_utf8_path("--resume", a.resume);
    return reopen_run_from(a.resume, writes, parent);
  }
  std::vector<std::string> overrides = with_encoding(with_seeds(a), a.encoding);
  if (!a.init.empty()) overrides.push_back("trainer.init=" + a.init);
  nlohmann::json given;
  Config cfg = given_config(a, overrides, given);
  resolve_data_format(cfg.data);
  const std::string output =
      a.output.empty() ? default_output(a.config.empty() ? cfg.data.train : a.config) : a.output;
  require_utf8_path(a.output.empty() ? "--output (default: runs/<config or data file name>)" : "--output", output);
  refuse_unsupported(cfg, ranks);
  parent = load_init_model(cfg);
  if (parent)
    cfg = inherit_from_parent(cfg, given, *parent,
                              [&](const std::string& key) { return key_origin(a, overrides, key); });
  return plan_run(std::move(cfg), output, a.overwrite, writes);
}

// A new run that fails before it trained (a missing embeddings file, say) leaves no
// config.json or vectors.txt behind, so the corrected command is not refused.
// Rank 0 alone writes in the run folder.
template <class Train>
auto train_or_abandon(const PreparedRun& run, const WordVectors* pretrained, const Collective& job, Train&& train) {
  const bool writes = job.rank() == 0;
  try {
    if (writes && !run.resume) begin_run(run);
    if (writes && pretrained) save_word_vectors(run.files.vectors, *pretrained);
    return train();
  } catch (const han::Error&) {
    if (writes) abandon_run(run);
    throw;
  }
}

// An epoch's dev scores for its log line: accuracy and macro-F1 (single), else every
// score of the task by name.
std::string dev_scores_text(const EpochRecord& r, Task task) {
  if (task == Task::single) return "acc " + format_fixed(r.dev_accuracy, 4) + "  F1 " + format_fixed(r.dev_macro_f1, 4);
  std::string out = task == Task::multilabel ? "macro_f1 " + format_fixed(r.dev_macro_f1, 4) : "";
  for (const auto& [name, value] : r.dev_more) out += (out.empty() ? "" : "  ") + name + " " + format_fixed(value, 4);
  return out;
}

// The progress bar (when shown) and one log line per epoch, after `tag` (an ensemble's
// "member k/N: ").
void report_progress(TrainOptions& options, ProgressBar& bar, const LogOptions& log, int epochs,
                     const std::string& tag, Task task) {
  if (show_progress(log) && options.job->rank() == 0) {
    options.on_batch = [&bar](const TrainProgress& p) { bar.update(epoch_fraction(p), epoch_progress_text(p)); };
  }
  options.on_epoch = [&bar, epochs, &tag, task](const EpochRecord& r) {
    bar.finish();
    spdlog::info("{}epoch {}/{}  loss {:.4f}  dev loss {}  {}  {:.1f}s  {:.0f} docs/s  {:.0f} tokens/s  "
                 "padding {:.2f}{}",
                 tag, r.epoch, epochs, r.train_loss, format_fixed(r.dev_loss, 4), dev_scores_text(r, task), r.seconds,
                 r.docs_per_second, r.tokens_per_second, r.padding_fraction, r.best ? "  *best" : "");
  };
}

// The test scores of a model (or, given several members, of their ensemble) with its
// head; null without a test set.
nlohmann::json test_scores(const std::vector<const HanParams*>& members, const Config& cfg, const Corpus& corpus,
                           const OutputHead& head, WeightedLinearMember linear = {}) {
  if (corpus.test.empty()) return nullptr;
  spdlog::debug("scoring {} test documents", corpus.test.size());
  const auto start = std::chrono::steady_clock::now();
  const TaskScores m = evaluate_task(Predictor(members, cfg.model, cfg.trainer.threads, head, linear), corpus.test,
                                     cfg.batching.batch_size);
  spdlog::debug("test scoring took {:.2f} s",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  if (cfg.model.task == Task::single)
    return {{"accuracy", m.single.accuracy}, {"macro_f1", m.single.macro_f1}, {"documents", m.single.total}};
  nlohmann::json test = {{"documents", corpus.test.size()}};
  for (const auto& [name, value] : m.headline()) test[name] = finite_or_null(value);
  return test;
}

void print_summary(const TrainResult& result, const PreparedRun& run, const Corpus& corpus,
                   const nlohmann::json& calibration) {
  const EpochRecord& best = result.history[result.best_epoch - 1];
  nlohmann::json summary = {
      {"model", run.files.model},
      {"best_epoch", result.best_epoch},
      {"epochs", result.history.size()},
      {"stopped_early", result.stopped_early},
      {"dev_accuracy", finite_or_null(best.dev_accuracy)},
      {"dev_macro_f1", finite_or_null(best.dev_macro_f1)},
      {"test", test_scores({&result.best_params}, run.config, corpus, result.head,
                           result.linear.weighted())},
      {"dev_calibration", calibration},
      {"train_documents", corpus.train.size()},
      {"skipped_empty", result.skipped_empty},
      {"seconds", result.seconds}};
  for (const auto& [name, value] : best.dev_more) summary["dev_" + name] = finite_or_null(value);
  if (run.config.model.linear_member) summary["linear_member"] = result.linear.summary_json();
  // With a linear member, the dev scores are the model's: the best epoch's and the member's together.
  if (result.dev_with_linear)
    for (const auto& [name, value] : result.dev_with_linear->headline()) summary["dev_" + name] = finite_or_null(value);
  std::printf("%s\n", summary.dump().c_str());
  std::fflush(stdout);
}

// Ctrl-C while the data is read: nothing to save, and nothing was written yet.
void stop_while_reading(const PreparedRun& run) {
  const std::string& dir = run.files.folder;
  stop_at_once(run.resume ? "interrupted while reading the data; " + dir +
                                " is unchanged: continue with han train --resume " + dir
                          : "interrupted while reading the data; nothing was written");
}

// model.embeddings = "pretrain" in a new run: the vectors, trained before anything is
// written (Ctrl-C ends at once: nothing to save). A resumed run reads its vectors.txt back.
std::optional<WordVectors> pretrain_if_asked(const PreparedRun& run) {
  if (run.resume || !pretrains_embeddings(run.config.model)) return std::nullopt;
  stop_at_once("interrupted while pretraining word vectors; nothing was written");
  return pretrain_vectors(run.config);
}

// Ctrl-C once training is complete (the test scoring, the summary): the model is kept.
void stop_when_complete(const PreparedRun& run, const Corpus& corpus) {
  stop_at_once("interrupted: training is complete and the model is in " + run.files.model +
               (corpus.test.empty() ? "" : "; the test set was not scored"));
}

// What calibration on dev did (the run calibrates itself: TrainOptions::calibrate), for the
// log, and for the summary (null when nothing was fitted).
nlohmann::json report_calibration(const Config& cfg, const Corpus& corpus, const std::optional<DevCalibration>& c) {
  if (c) {
    spdlog::info("calibration on dev: {}", c->to_text());
    return c->to_json();
  }
  if (cfg.trainer.calibrate && corpus.dev.empty() && cfg.model.task != Task::regression)
    spdlog::info("calibration: no dev set (data.dev), the model keeps temperature 1{}",
                 cfg.model.task == Task::multilabel ? " and thresholds 0.5" : "");
  return nullptr;
}

// An ensemble's summary line and the result lines of its metrics.jsonl: the dev and test
// scores of every member and of the ensemble.
void print_ensemble_summary(const EnsembleResult& result, const PreparedRun& run, const Corpus& corpus,
                            const nlohmann::json& calibration) {
  const Config& cfg = run.config;
  nlohmann::json members = nlohmann::json::array();
  std::vector<nlohmann::json> results;
  std::vector<const HanParams*> params;
  Index skipped_empty = 0;
  for (std::size_t k = 0; k < result.members.size(); ++k) {
    params.push_back(&result.members[k].best_params);
    skipped_empty = std::max(skipped_empty, result.members[k].skipped_empty);  // a kept member's: 0
    results.push_back(member_result_json(cfg, result, static_cast<int>(k + 1),
                                         test_scores({params.back()}, cfg, corpus, result.members[k].head)));
    members.push_back(results.back());
    members.back().erase("result");
  }
  results.push_back(ensemble_result_json(cfg, result, test_scores(params, cfg, corpus, result.head, result.linear.weighted())));
  write_ensemble_metrics(run.files.folder, cfg.trainer.ensemble, results);
  const nlohmann::json& ensemble = results.back();
  nlohmann::json summary = {{"model", run.files.model},
                            {"ensemble", cfg.trainer.ensemble},
                            {"test", ensemble["test"]},
                            {"dev_calibration", calibration},
                            {"members", members},
                            {"train_documents", corpus.train.size()},
                            {"skipped_empty", skipped_empty},
                            {"seconds", result.seconds}};
  summary.update(dev_scores_of(ensemble));  // the task's dev scores
  if (cfg.model.linear_member) summary["linear_member"] = result.linear.summary_json();
  std::printf("%s\n", summary.dump().c_str());
  std::fflush(stdout);
}

[[noreturn]] void report_interrupted_ensemble(const EnsembleResult& result, const PreparedRun& run) {
  const std::size_t member = result.members.size();
  std::fprintf(stderr,
               "han: interrupted: %zu of %d members finished (kept in %s); member %zu's checkpoint written to %s; "
               "continue with: han train --resume %s\n",
               member - 1, run.config.trainer.ensemble, run.files.members.c_str(), member, result.checkpoint.c_str(),
               run.files.folder.c_str());
  throw CommandExit{stop_exit_code()};
}

// trainer.ensemble > 1: the members one after the other, each logged with its tag.
void run_ensemble(const PreparedRun& run, const WordVectors* pretrained, const Corpus& corpus,
                  const TrainOptions& options, std::string& tag, ProgressBar& bar) {
  const int n = run.config.trainer.ensemble;
  const auto on_member = [&](int k, bool kept) {
    tag = "member " + std::to_string(k) + "/" + std::to_string(n) + ": ";
    spdlog::info("member {}/{} (seed {}): {}", k, n, member_config(run.config, k).trainer.seed,
                 kept ? "finished before, kept" : "training");
  };
  const EnsembleResult result =
      train_or_abandon(run, pretrained, *options.job, [&] { return train_ensemble(run.config, corpus, options, on_member); });
  bar.finish();
  if (result.interrupted) report_interrupted_ensemble(result, run);
  if (result.dev.single.total > 0)
    spdlog::info("ensemble of {}: dev loss {:.4f}  acc {:.4f}  F1 {:.4f}", n, result.dev.loss, result.dev.single.accuracy,
                 result.dev.single.macro_f1);
  const nlohmann::json calibration = report_calibration(run.config, corpus, result.calibration);
  stop_when_complete(run, corpus);
  print_ensemble_summary(result, run, corpus, calibration);
}

// Trains on every rank of the job (one, or mpirun's N): every rank reads the config and
// the data (from a token cache, only the words of its share), the ranks check they read
// the same, then train together; rank 0 alone writes the run folder and stdout.
void train_command(const TrainArgs& a) {
  setup_logging(a.log);
  const std::unique_ptr<Collective> job = make_collective();
  name_rank_in_logs(job->rank(), job->ranks());
  std::optional<Classifier> parent;
  const PreparedRun run = start_on_every_rank(*job, [&] { return prepare_run(a, job->ranks(), job->rank() == 0, parent); });
  job->set_timeout(run.config.trainer.rank_timeout);  // (every rank at once: they just agreed)
  const std::optional<WordVectors> pretrained = pretrain_if_asked(run);
  stop_while_reading(run);
  const Corpus corpus = start_on_every_rank(*job, [&] {
    return load_training_corpus(run, pretrained ? &*pretrained : nullptr, parent ? &*parent : nullptr);
  });
  stop_gracefully();  // from here on there is a run to save
  ProgressBar bar;
  std::string tag;  // an ensemble member's, before each epoch's log line
  TrainOptions options;
  options.output_dir = run.files.folder;
  options.resume = run.resume;
  options.stop_requested = stop_requested;
  options.job = job.get();
  options.parent = parent ? &*parent : nullptr;
  options.calibrate = true;
  report_progress(options, bar, a.log, run.config.trainer.epochs, tag, run.config.model.task);
  const WordVectors* vectors = pretrained ? &*pretrained : nullptr;
  if (run.config.trainer.ensemble > 1) return run_ensemble(run, vectors, corpus, options, tag, bar);
  const TrainResult result = train_on_every_rank(*job, [&] {
    if (job->ranks() > 1) require_same_inputs(*job, hash_rank_inputs(version_line(), run.config, corpus));
    return train_or_abandon(run, vectors, *job, [&] { return train_model(run.config, corpus, options); });
  });
  bar.finish();
  if (result.interrupted) {
    if (job->rank() == 0)
      std::fprintf(stderr, "han: interrupted: checkpoint written to %s; continue with: han train --resume %s\n",
                   result.checkpoint.c_str(), run.files.folder.c_str());
    throw CommandExit{stop_exit_code()};
  }
  if (job->rank() != 0) return;
  const nlohmann::json calibration = report_calibration(run.config, corpus, result.calibration);
  stop_when_complete(run, corpus);
  print_summary(result, run, corpus, calibration);
}

// An error a key's value causes once the data is read is blamed on its --set too.
void run_train(const TrainArgs& a) {
  try {
    train_command(a);
  } catch (const han::Error& e) {
    const han::Error blamed = han::blamed_on_override(e, a.overrides);
    if (std::string(blamed.what()) == e.what()) throw;  // unchanged: as thrown, with its own type
    throw blamed;
  }
}

}  // namespace

void add_train_command(CLI::App& app) {
  auto args = std::make_shared<TrainArgs>();
  CLI::App* cmd = app.add_subcommand("train", "Train a model from a JSON config");
  cmd->add_option("data", args->data, "Training data (data.train); without --config, trained with the defaults")
      ->type_name("FILE");
  cmd->add_option("-c,--config", args->config, "JSON config file (keys: han help config; default: the defaults)")
      ->type_name("FILE");
  cmd->add_option("-r,--resume", args->resume, "Continue an interrupted run from its checkpoint (DIR/checkpoint.han, or an ensemble member's)")->type_name("DIR");
  cmd->add_option("-s,--set", args->overrides, "Override a config key: key.path=value (repeatable)")
      ->allow_extra_args(false)
      ->type_name("KEY=VALUE");
  cmd->add_option("--init", args->init,
                  "Start from a trained model: train it further, or fine-tune it for new labels "
                  "(same as --set trainer.init=MODEL)")
      ->type_name("MODEL");
  cmd->add_option("-o,--output", args->output,
                  "Output folder for model.han, config.json, metrics.jsonl (default: runs/<config name>)")
      ->type_name("DIR");
  cmd->add_flag("--overwrite", args->overwrite, "Replace the run the output folder holds (else it is refused)");
  cmd->add_option("--seeds", args->seeds,
                  "Train an ensemble of N models (seeds trainer.seed, +1, ...) whose probabilities are averaged: "
                  "--set trainer.ensemble=N")
      ->type_name("N")
      ->check(in_range(1, 100));
  add_encoding_option(*cmd, args->encoding, "the data files'");
  add_log_options(*cmd, args->log);
  cmd->callback([args] { run_train(*args); });
}

}  // namespace han::cli
