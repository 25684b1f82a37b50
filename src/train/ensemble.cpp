#include "han/train/ensemble.h"

#include <chrono>
#include <filesystem>
#include <sstream>
#include <system_error>

#include "han/core/error.h"
#include "han/core/io.h"
#include "han/core/json_text.h"
#include "han/infer/classifier.h"
#include "han/infer/evaluation.h"
#include "han/train/calibration.h"
#include "han/train/init_model.h"
#include "han/train/linear_weight.h"
#include "han/train/run_folder.h"

namespace han {
namespace {

namespace fs = std::filesystem;

// Every JSON line of a metrics.jsonl, with `path:line` in the error for a bad one.
std::vector<nlohmann::json> metrics_lines(const std::string& path) {
  std::vector<nlohmann::json> out;
  std::istringstream in(read_file(path));
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object())
      throw Error(path + ":" + std::to_string(n) + ": not a metrics record (malformed JSON)");
    out.push_back(std::move(j));
  }
  return out;
}

// A member an earlier call finished: model.han and metrics.jsonl, and no checkpoint.
bool finished_member(const std::string& dir) {
  const RunFiles f = run_files(dir);
  std::error_code ec;
  return fs::exists(f.model, ec) && fs::exists(f.metrics, ec) && !fs::exists(f.checkpoint, ec);
}

// A finished member read back: its best model and its epochs.
TrainResult kept_member(const Config& member_cfg, const std::string& dir) {
  const RunFiles f = run_files(dir);
  TrainResult r;
  Classifier kept = load_classifier(f.model);
  r.best_params = std::move(kept.params);
  r.head = kept.head;
  for (const nlohmann::json& j : metrics_lines(f.metrics)) {
    try {
      r.history.push_back(EpochRecord::from_json(j));
    } catch (const nlohmann::json::exception&) {
      throw Error(f.metrics + ": not a metrics record (an epoch's fields are missing)");
    }
    if (r.history.back().best) r.best_epoch = r.history.back().epoch;
  }
  if (r.best_epoch < 1 || r.best_epoch > static_cast<int>(r.history.size()))
    throw Error(f.metrics + ": no best epoch recorded; retrain with --overwrite");
  r.stopped_early = static_cast<int>(r.history.size()) < member_cfg.trainer.epochs;
  return r;
}

// Member k trained, or continued from its checkpoint, in its own folder; DIR/metrics.jsonl
// follows its epochs.
TrainResult train_member(const Config& cfg, const Corpus& corpus, const TrainOptions& options, int member) {
  const std::string dir = member_folder(options.output_dir, member);
  TrainOptions o = options;
  o.output_dir = dir;
  o.resume = options.resume && fs::exists(run_files(dir).checkpoint);
  o.pretrained_vectors = run_files(options.output_dir).vectors;
  o.on_epoch = [&options, &cfg](const EpochRecord& r) {
    write_ensemble_metrics(options.output_dir, cfg.trainer.ensemble);
    if (options.on_epoch) options.on_epoch(r);
  };
  if (!o.resume) remove_run_files(dir);  // what a killed attempt may have left
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error("cannot create " + dir + ": " + ec.message(), 1);
  return train_model(member_config(cfg, member), corpus, o);
}

// The HAN members as one model (a linear member joins it in `assemble`).
Classifier ensemble_classifier(const Config& cfg, const Corpus& corpus, const EnsembleResult& r) {
  // The head a trained model holds is the one it started with (thresholds are not tuned yet).
  Classifier c{without_linear_member(with_corpus_tokenizer(cfg, corpus)), corpus.vocab, corpus.labels,
               r.members.front().best_params, {}, initial_head(cfg.model.task, corpus.labels.size(), corpus.targets)};
  for (std::size_t k = 1; k < r.members.size(); ++k) c.more_members.push_back(r.members[k].best_params);
  return c;
}

nlohmann::json trained_header(const Config& cfg, const EnsembleResult& r) {
  nlohmann::json members = nlohmann::json::array();
  for (int k = 1; k <= static_cast<int>(r.members.size()); ++k) {
    const nlohmann::json m = member_result_json(cfg, r, k, nullptr);
    members.push_back(nlohmann::json{{"member", k}, {"seed", m["seed"]}, {"best_epoch", m["best_epoch"]}});
    members.back().update(dev_scores_of(m));
  }
  // The ensemble's scores are the model's as it answers (with its linear member, calibrated).
  nlohmann::json header = nlohmann::json::object();
  if (r.dev_scored) header["answers"] = EpochRecord::of_dev(r.dev.headline()).dev_scores_record();
  header["members"] = members;
  if (cfg.model.linear_member) header["linear_member"] = r.linear.to_json();
  return header;
}

// Once every member is trained: the ensemble's calibration and dev score, DIR/model.han and
// the result lines.
void assemble(const Config& cfg, const Corpus& corpus, const TrainOptions& options, EnsembleResult& r) {
  const std::vector<BatchIndices> dev_batches = scoring_batches(corpus.dev, cfg);
  const bool calibrates = calibrates_on_dev(cfg, options.calibrate, corpus.dev);
  Classifier c = ensemble_classifier(cfg, corpus, r);
  if (cfg.model.linear_member) {
    r.linear = train_weighted_linear_member(cfg, corpus, c.members(), c.head, dev_batches, calibrates,
                                            continued_linear_member(options.parent, cfg, corpus.labels));
    attach_linear_member(c, r.linear);
  }
  if (calibrates)
    r.calibration = calibrate_on_dev(c, corpus.dev, cfg.trainer.threads);
  r.head = c.head;
  r.dev_scored = !corpus.dev.empty();
  if (r.dev_scored)
    r.dev = evaluate_task(Predictor(c.members(), c.config.model, cfg.trainer.threads, c.head, c.weighted_linear_member()),
                          corpus.dev, dev_batches);
  nlohmann::json header = {{"trained", trained_header(cfg, r)}};
  if (r.calibration) header["calibration"] = r.calibration->to_json();
  const std::string folder = options.output_dir;
  save_classifier(run_files(folder).model, c, header);
  std::vector<nlohmann::json> results;
  for (int k = 1; k <= static_cast<int>(r.members.size()); ++k) results.push_back(member_result_json(cfg, r, k, nullptr));
  results.push_back(ensemble_result_json(cfg, r, nullptr));
  write_ensemble_metrics(folder, cfg.trainer.ensemble, results);
}

}  // namespace

Config member_config(const Config& cfg, int member) {
  Config m = without_linear_member(cfg);  // the ensemble trains its own, once
  m.trainer.seed = cfg.trainer.seed + static_cast<std::uint64_t>(member - 1);
  m.trainer.ensemble = 1;
  return m;
}

std::string member_folder(const std::string& folder, int member) {
  return (fs::path(run_files(folder).members) / std::to_string(member)).string();
}

EnsembleResult train_ensemble(const Config& cfg, const Corpus& corpus, const TrainOptions& options,
                              const std::function<void(int, bool)>& on_member) {
  HAN_ASSERT(!options.output_dir.empty() && cfg.trainer.ensemble > 1);
  const auto start = std::chrono::steady_clock::now();
  EnsembleResult r;
  for (int k = 1; k <= cfg.trainer.ensemble && !r.interrupted; ++k) {
    const std::string dir = member_folder(options.output_dir, k);
    const bool kept = options.resume && finished_member(dir);
    if (on_member) on_member(k, kept);
    r.members.push_back(kept ? kept_member(member_config(cfg, k), dir) : train_member(cfg, corpus, options, k));
    r.kept.push_back(kept);
    r.interrupted = r.members.back().interrupted;
  }
  if (r.interrupted) r.checkpoint = r.members.back().checkpoint;
  else assemble(cfg, corpus, options, r);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

nlohmann::json member_result_json(const Config& cfg, const EnsembleResult& r, int member, const nlohmann::json& test) {
  const TrainResult& m = r.members.at(static_cast<std::size_t>(member - 1));
  const EpochRecord& best = m.history.at(static_cast<std::size_t>(m.best_epoch - 1));
  nlohmann::json j = {{"result", "member"},
          {"member", member},
          {"seed", member_config(cfg, member).trainer.seed},
          {"best_epoch", m.best_epoch},
          {"epochs", m.history.size()},
          {"stopped_early", m.stopped_early},
          {"test", test}};
  j.update(best.dev_json());
  return j;
}

nlohmann::json ensemble_result_json(const Config& cfg, const EnsembleResult& r, const nlohmann::json& test) {
  // The task's dev scores named as an epoch's are (all null without a dev set).
  TaskScores unscored;
  unscored.task = cfg.model.task;
  const EpochRecord dev = EpochRecord::of_dev(r.dev_scored ? r.dev.headline() : unscored.headline());
  nlohmann::json j = {{"result", "ensemble"}, {"members", cfg.trainer.ensemble}, {"test", test}};
  j.update(dev.dev_json());
  if (!r.dev_scored)
    for (auto& [key, value] : j.items())
      if (key.rfind("dev_", 0) == 0) value = nullptr;
  return j;
}

nlohmann::json dev_scores_of(const nlohmann::json& result) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, value] : result.items())
    if (key.rfind("dev_", 0) == 0) out[key] = value;
  return out;
}

void write_ensemble_metrics(const std::string& folder, int members, const std::vector<nlohmann::json>& results) {
  std::string text;
  for (int k = 1; k <= members; ++k) {
    const std::string path = run_files(member_folder(folder, k)).metrics;
    std::error_code ec;
    if (!fs::exists(path, ec)) continue;
    for (nlohmann::json& j : metrics_lines(path)) {
      j["member"] = k;
      text += j.dump() + "\n";
    }
  }
  for (const nlohmann::json& j : results) text += j.dump() + "\n";
  write_file_atomically(run_files(folder).metrics, text);
}

}  // namespace han
