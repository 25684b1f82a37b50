// han train --config FILE [--set key=value]... [--output DIR]
#include <spdlog/spdlog.h>

#include <atomic>
#include <csignal>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "commands.h"
#include "han/infer/classifier.h"
#include "han/text/corpus.h"
#include "han/core/error.h"
#include "han/core/io.h"
#include "han/infer/metrics.h"
#include "han/infer/predictor.h"
#include "han/train/trainer.h"
#include "logging.h"

namespace han::cli {
namespace {

// Set by SIGINT/SIGTERM: the trainer finishes its step, checkpoints and returns.
// SA_RESETHAND makes a second signal stop the process at once.
std::atomic<int> g_stop_signal{0};

extern "C" void request_stop(int sig) { g_stop_signal.store(sig); }

void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = request_stop;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

struct TrainArgs {
  std::string config;
  std::string resume;
  std::vector<std::string> overrides;
  std::string output;
  LogOptions log;
};

std::string default_output(const std::string& config_path) {
  return (std::filesystem::path("runs") / std::filesystem::path(config_path).stem()).string();
}

void prepare_output_dir(const std::string& dir) {
  std::error_code ec;
  if (std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec))
    throw han::Error(dir + ": --output exists and is not a folder");
  std::filesystem::create_directories(dir, ec);
  if (ec) throw han::Error("cannot create output folder " + dir + ": " + ec.message(), 1);
}

nlohmann::json test_scores(const TrainResult& result, const Config& cfg, const Corpus& corpus) {
  if (corpus.test.empty()) return nullptr;
  const Predictor predictor(result.best_params, cfg.model, cfg.trainer.threads);
  const Matrix probs = predictor.predict(corpus.test, cfg.batching.batch_size);
  std::vector<std::int32_t> gold;
  for (const Document& d : corpus.test) gold.push_back(d.label);
  const Metrics m = compute_metrics(gold, argmax_columns(probs), corpus.labels.size());
  return {{"accuracy", m.accuracy}, {"macro_f1", m.macro_f1}, {"documents", m.total}};
}

void run_train(TrainArgs& a) {
  setup_logging(a.log);
  if (a.config.empty() == a.resume.empty()) throw han::Error("train needs exactly one of --config FILE or --resume DIR");
  if (!a.resume.empty() && (!a.overrides.empty() || !a.output.empty()))
    throw han::Error("--resume continues a run as it was configured: it takes no --set or --output");
  Config cfg;
  if (!a.resume.empty()) {
    a.output = a.resume;
    const std::string checkpoint = (std::filesystem::path(a.resume) / "checkpoint.han").string();
    if (!std::filesystem::exists(checkpoint))
      throw han::Error(checkpoint + ": no checkpoint to resume from (the run finished, or was never interrupted)");
    // config.json holds the effective config with absolute paths (see below).
    const std::string saved = (std::filesystem::path(a.resume) / "config.json").string();
    nlohmann::json j = nlohmann::json::parse(read_file(saved), nullptr, false);
    if (j.is_discarded()) throw han::Error(saved + ": malformed JSON");
    cfg = stored_config_from_json(j, saved);
  } else {
    cfg = load_config_file(a.config, a.overrides);
    // Absolute paths keep DIR/config.json valid from any folder (for --resume and reruns).
    for (std::string* path : {&cfg.data.train, &cfg.data.dev, &cfg.data.test, &cfg.model.embeddings})
      if (!path->empty()) *path = std::filesystem::absolute(*path).lexically_normal().string();
    if (a.output.empty()) a.output = default_output(a.config);
    prepare_output_dir(a.output);
    write_file_atomically((std::filesystem::path(a.output) / "config.json").string(),
                          config_to_json(cfg).dump(2) + "\n");
  }
  const Corpus corpus = load_corpus(cfg);

  const bool progress = show_progress(a.log);
  ProgressBar bar;
  TrainOptions options;
  options.output_dir = a.output;
  if (progress) {
    options.on_batch = [&](const TrainProgress& p) {
      const double fraction = static_cast<double>(p.batch) / static_cast<double>(p.batches);
      const double eta = p.seconds / fraction * (1 - fraction);
      char text[160];
      std::snprintf(text, sizeof text, "epoch %d/%d loss %.4f %.0f docs/s ETA %s", p.epoch, p.epochs,
                    p.mean_loss, p.docs_per_second, format_duration(eta).c_str());
      bar.update(fraction, text);
    };
  }
  options.on_epoch = [&](const EpochRecord& r) {
    bar.finish();
    spdlog::info("epoch {}/{}  loss {:.4f}  dev acc {:.4f}  dev F1 {:.4f}  {:.1f}s  {:.0f} docs/s  {:.0f} tokens/s  padding {:.2f}{}",
                 r.epoch, cfg.trainer.epochs, r.train_loss, r.dev_accuracy, r.dev_macro_f1, r.seconds,
                 r.docs_per_second, r.tokens_per_second, r.padding_fraction, r.best ? "  *best" : "");
  };
  options.resume = !a.resume.empty();
  install_stop_handlers();
  options.stop_requested = [] { return g_stop_signal.load() != 0; };
  const TrainResult result = train_model(cfg, corpus, options);
  bar.finish();
  if (result.interrupted) {
    std::fprintf(stderr, "han: interrupted: checkpoint written to %s; continue with: han train --resume %s\n",
                 result.checkpoint.c_str(), a.output.c_str());
    std::fflush(stderr);
    std::exit(128 + g_stop_signal.load());
  }

  const EpochRecord& best = result.history[result.best_epoch - 1];
  auto number = [](double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); };
  nlohmann::json summary = {
      {"model", (std::filesystem::path(a.output) / "model.han").string()},
      {"best_epoch", result.best_epoch},
      {"epochs", result.history.size()},
      {"stopped_early", result.stopped_early},
      {"dev_accuracy", number(best.dev_accuracy)},
      {"dev_macro_f1", number(best.dev_macro_f1)},
      {"test", test_scores(result, cfg, corpus)},
      {"train_documents", corpus.train.size()},
      {"skipped_empty", result.skipped_empty},
      {"seconds", result.seconds}};
  std::printf("%s\n", summary.dump().c_str());
  std::fflush(stdout);
}

}  // namespace

void add_train_command(CLI::App& app) {
  auto args = std::make_shared<TrainArgs>();
  CLI::App* cmd = app.add_subcommand("train", "Train a model from a JSON config");
  cmd->add_option("-c,--config", args->config, "JSON config file (see README: Configuration)");
  cmd->add_option("-r,--resume", args->resume, "Continue an interrupted run from DIR/checkpoint.han");
  cmd->add_option("-s,--set", args->overrides, "Override a config key: key.path=value (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("-o,--output", args->output,
                  "Output folder for model.han, config.json, metrics.jsonl (default: runs/<config name>)");
  add_log_options(*cmd, args->log);
  cmd->callback([args] { run_train(*args); });
}

}  // namespace han::cli
