// han train --config FILE [--set key=value]... [--init MODEL] [--output DIR] [--overwrite] | han train --resume DIR
#include <spdlog/spdlog.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "commands.h"
#include "han/core/json_text.h"
#include "han/infer/classifier.h"
#include "han/text/corpus.h"
#include "han/core/error.h"
#include "han/infer/evaluation.h"
#include "han/train/init_model.h"
#include "han/train/pretraining.h"
#include "han/train/run_folder.h"
#include "han/train/trainer.h"
#include "interrupts.h"
#include "logging.h"
#include "training_progress.h"

namespace han::cli {
namespace {

struct TrainArgs {
  std::string config;
  std::string resume;
  std::vector<std::string> overrides;
  std::string init;
  std::string output;
  bool overwrite = false;
  LogOptions log;
};

std::string default_output(const std::string& config_path) {
  return (std::filesystem::path("runs") / std::filesystem::path(config_path).stem()).string();
}

// Where a key's value came from, for messages: the last --set of it, else the config file.
std::string key_origin(const TrainArgs& a, const std::vector<std::string>& overrides, const std::string& key) {
  for (auto o = overrides.rbegin(); o != overrides.rend(); ++o)
    if (o->rfind(key + "=", 0) == 0) return "--set " + *o;
  return a.config;
}

// A resumed run from a model checks that model against its config.json again.
PreparedRun reopen_run_from(const std::string& folder, std::optional<Classifier>& parent) {
  PreparedRun run = reopen_run(folder);
  parent = load_init_model(run.config);
  if (parent)
    run.config = inherit_from_parent(run.config, config_to_json(run.config), *parent,
                                     [&](const std::string&) { return run.files.config; });
  return run;
}

// The run to train, and in `parent` the model it starts from (--init, trainer.init).
PreparedRun prepare_run(const TrainArgs& a, std::optional<Classifier>& parent) {
  if (a.config.empty() == a.resume.empty()) throw han::Error("train needs exactly one of --config FILE or --resume DIR");
  if (!a.resume.empty() && (!a.overrides.empty() || !a.init.empty() || !a.output.empty() || a.overwrite))
    throw han::Error("--resume continues a run as it was configured: it takes no --set, --init, --output or --overwrite");
  // The folder is named in the JSON summary (its model path): refused before any work.
  if (!a.resume.empty()) {
    require_utf8_path("--resume", a.resume);
    return reopen_run_from(a.resume, parent);
  }
  const std::string output = a.output.empty() ? default_output(a.config) : a.output;
  require_utf8_path(a.output.empty() ? "--output (default: runs/<config name>)" : "--output", output);
  std::vector<std::string> overrides = a.overrides;
  if (!a.init.empty()) overrides.push_back("trainer.init=" + a.init);
  nlohmann::json given;
  Config cfg = load_config_file(a.config, overrides, &given);
  parent = load_init_model(cfg);
  if (parent)
    cfg = inherit_from_parent(cfg, given, *parent,
                              [&](const std::string& key) { return key_origin(a, overrides, key); });
  return plan_run(std::move(cfg), output, a.overwrite);
}

// A new run that fails before it trained (a missing embeddings file, say) leaves no
// config.json or vectors.txt behind, so the corrected command is not refused.
TrainResult train_or_abandon(const PreparedRun& run, const WordVectors* pretrained, const Corpus& corpus,
                             const TrainOptions& options) {
  try {
    if (pretrained) save_word_vectors(run.files.vectors, *pretrained);
    return train_model(run.config, corpus, options);
  } catch (const han::Error&) {
    abandon_run(run);
    throw;
  }
}

// The progress bar (when shown) and one log line per epoch.
void report_progress(TrainOptions& options, ProgressBar& bar, const LogOptions& log, int epochs) {
  if (show_progress(log)) {
    options.on_batch = [&bar](const TrainProgress& p) { bar.update(epoch_fraction(p), epoch_progress_text(p)); };
  }
  options.on_epoch = [&bar, epochs](const EpochRecord& r) {
    bar.finish();
    spdlog::info("epoch {}/{}  loss {:.4f}  dev loss {:.4f}  acc {:.4f}  F1 {:.4f}  {:.1f}s  {:.0f} docs/s  {:.0f} tokens/s  padding {:.2f}{}",
                 r.epoch, epochs, r.train_loss, r.dev_loss, r.dev_accuracy, r.dev_macro_f1, r.seconds,
                 r.docs_per_second, r.tokens_per_second, r.padding_fraction, r.best ? "  *best" : "");
  };
}

nlohmann::json test_scores(const TrainResult& result, const Config& cfg, const Corpus& corpus) {
  if (corpus.test.empty()) return nullptr;
  spdlog::debug("scoring {} test documents", corpus.test.size());
  const auto start = std::chrono::steady_clock::now();
  const Metrics m = evaluate(Predictor(result.best_params, cfg.model, cfg.trainer.threads), corpus.test,
                             cfg.batching.batch_size);
  spdlog::debug("test scoring took {:.2f} s",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return {{"accuracy", m.accuracy}, {"macro_f1", m.macro_f1}, {"documents", m.total}};
}

void print_summary(const TrainResult& result, const PreparedRun& run, const Corpus& corpus) {
  const EpochRecord& best = result.history[result.best_epoch - 1];
  nlohmann::json summary = {
      {"model", run.files.model},
      {"best_epoch", result.best_epoch},
      {"epochs", result.history.size()},
      {"stopped_early", result.stopped_early},
      {"dev_accuracy", finite_or_null(best.dev_accuracy)},
      {"dev_macro_f1", finite_or_null(best.dev_macro_f1)},
      {"test", test_scores(result, run.config, corpus)},
      {"train_documents", corpus.train.size()},
      {"skipped_empty", result.skipped_empty},
      {"seconds", result.seconds}};
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

void run_train(const TrainArgs& a) {
  setup_logging(a.log);
  std::optional<Classifier> parent;
  const PreparedRun run = prepare_run(a, parent);
  const std::optional<WordVectors> pretrained = pretrain_if_asked(run);
  stop_while_reading(run);
  const Corpus corpus = load_training_corpus(run, pretrained ? &*pretrained : nullptr, parent ? &*parent : nullptr);
  stop_gracefully();  // from here on there is a run to save
  if (!run.resume) begin_run(run);
  ProgressBar bar;
  TrainOptions options;
  options.output_dir = run.files.folder;
  options.resume = run.resume;
  options.stop_requested = stop_requested;
  options.parent = parent ? &*parent : nullptr;
  report_progress(options, bar, a.log, run.config.trainer.epochs);
  const TrainResult result = train_or_abandon(run, pretrained ? &*pretrained : nullptr, corpus, options);
  bar.finish();
  if (result.interrupted) {
    std::fprintf(stderr, "han: interrupted: checkpoint written to %s; continue with: han train --resume %s\n",
                 result.checkpoint.c_str(), run.files.folder.c_str());
    throw CommandExit{stop_exit_code()};
  }
  stop_when_complete(run, corpus);
  print_summary(result, run, corpus);
}

}  // namespace

void add_train_command(CLI::App& app) {
  auto args = std::make_shared<TrainArgs>();
  CLI::App* cmd = app.add_subcommand("train", "Train a model from a JSON config");
  cmd->add_option("-c,--config", args->config, "JSON config file (see README: Configuration)")->type_name("FILE");
  cmd->add_option("-r,--resume", args->resume, "Continue an interrupted run from DIR/checkpoint.han")->type_name("DIR");
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
  add_log_options(*cmd, args->log);
  cmd->callback([args] { run_train(*args); });
}

}  // namespace han::cli
