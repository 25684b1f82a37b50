#include "han/study/ablation.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>

#include "han/text/batcher.h"
#include "han/core/error.h"
#include "han/core/io.h"
#include "han/core/number_text.h"
#include "han/core/select_metric.h"
#include "han/infer/evaluation.h"
#include "han/infer/predictor.h"
#include "han/train/calibration.h"
#include "han/train/linear_weight.h"
#include "han/study/statistics.h"
#include "han/train/run_folder.h"
#include "han/train/trainer.h"

namespace han {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Dev documents every run is probed with, chosen once from the corpus.
struct Probes {
  std::vector<Index> longest;   // the longest dev documents: the padded company
  std::vector<Index> checked;   // documents whose invariance is measured
  std::vector<Index> examples;  // short documents shown in the report
};

Probes choose_probes(const Documents& dev) {
  Probes p;
  std::vector<Index> order;
  for (Index i = 0; i < static_cast<Index>(dev.size()); ++i)
    if (!dev[i].sentences.empty()) order.push_back(i);
  sort_by_length(dev, order);
  const Index n = static_cast<Index>(order.size());
  for (Index k = std::max<Index>(0, n - 7); k < n; ++k) p.longest.push_back(order[k]);
  const Index rest = n - static_cast<Index>(p.longest.size());
  for (Index k = 0; k < std::min<Index>(16, rest); ++k) p.checked.push_back(order[k * rest / std::min<Index>(16, rest)]);
  for (Index i = 0; i < static_cast<Index>(dev.size()) && p.examples.size() < 2; ++i) {
    const auto& s = dev[i].sentences;
    const bool short_sentences = std::all_of(s.begin(), s.end(), [](const auto& w) { return w.size() <= 25; });
    if (s.size() >= 3 && s.size() <= 8 && short_sentences) p.examples.push_back(i);
  }
  return p;
}

// The task's scores, in the batches training scored its dev set in.
std::optional<SplitScores> scores(const Predictor& predictor, const Documents& docs, const Config& cfg,
                                  PaddingAttention* padding) {
  if (docs.empty()) return std::nullopt;
  const Matrix answers = predictor.predict(docs, scoring_batches(docs, cfg), nullptr, padding);
  return SplitScores::of(score_answers(predictor.head(), answers, docs));
}

// How stored runs were scored: 2 since multi-label variants are calibrated on dev. A
// multi-label run stored by the older rule is trained again; other tasks' scoring did not change.
constexpr int kScoringVersion = 2;

// The model a variant is scored as: its best parameters and linear member, and for
// multi-label its thresholds (and temperature) fitted on dev as han train fits a model's
// (train/calibration.h, unless trainer.calibrate is false), so the variants are compared as
// the models han train would write. A single-label temperature changes no answer: not fitted.
Classifier variant_model(const Config& cfg, const Corpus& corpus, const TrainResult& r) {
  Classifier c{cfg, corpus.vocab, corpus.labels, r.best_params, {},
               initial_head(cfg.model.task, corpus.labels.size(), corpus.targets)};
  if (cfg.model.linear_member) attach_linear_member(c, r.linear);
  if (cfg.model.task == Task::multilabel && calibrates_on_dev(cfg, true, corpus.dev))
    calibrate_on_dev(c, corpus.dev, cfg.trainer.threads);
  return c;
}

// The largest change of a checked document's probabilities alone vs. padded with the longest.
double invariance_error(const Predictor& predictor, const Corpus& corpus, const Probes& probes) {
  double invariance = 0;
  for (Index d : probes.checked) {
    std::vector<Index> company = probes.longest;
    company.push_back(d);
    const Matrix alone = predictor.predict_batch(corpus.dev, {d});
    const Matrix batched = predictor.predict_batch(corpus.dev, company);
    invariance = std::max<double>(invariance, (alone.col(0) - batched.col(batched.cols() - 1)).cwiseAbs().maxCoeff());
  }
  return invariance;
}

std::vector<AttentionExample> attention_examples(const Predictor& predictor, const Corpus& corpus, const Probes& probes) {
  std::vector<AttentionExample> examples;
  for (Index d : probes.examples) {
    std::vector<Index> company = probes.longest;
    company.push_back(d);
    std::vector<Explanation> ex;
    const Matrix answers = predictor.predict_batch(corpus.dev, company, &ex);
    const Vector p = answers.col(answers.cols() - 1);
    Index best = 0;
    if (predictor.head().task != Task::regression) p.maxCoeff(&best);  // the most probable label
    const std::string label = predictor.head().task == Task::regression ? "predicted" : corpus.labels[best];
    examples.push_back({d, label, p(best), ex.back().sentence_weights, ex.back().word_weights});
  }
  return examples;
}

// One run trained and measured, or nothing when a stop was requested meanwhile.
std::optional<AblationRun> run_one(const Config& cfg, const Corpus& corpus, const Probes& probes,
                                   const TrainOptions& train_options) {
  const TrainResult r = train_model(cfg, corpus, train_options);
  if (r.interrupted) return std::nullopt;
  // With model.linear_member (--with-member), the variant's linear member is averaged in, as han predict would.
  const Classifier model = variant_model(cfg, corpus, r);
  Predictor predictor(model.members(), model.config.model, cfg.trainer.threads, model.head,
                      model.weighted_linear_member());
  const auto& stop = train_options.stop_requested;
  if (stop) predictor.on_progress([&stop](Index) { return !stop(); });
  PaddingAttention pad;
  AblationRun run;
  run.mask = cfg.model.mask;
  run.batching = cfg.batching.strategy;
  run.seed = cfg.trainer.seed;
  run.best_epoch = r.best_epoch;
  run.dev = *scores(predictor, corpus.dev, cfg, &pad);
  run.test = scores(predictor, corpus.test, cfg, nullptr);
  if (stop && stop()) return std::nullopt;  // the scores were cut short
  run.pad_attention_mass = {pad.word(), pad.sentence()};
  predictor.allow_fast_gemm(false);  // alone and batched on one GEMM: the difference is masking's
  run.invariance_error = invariance_error(predictor, corpus, probes);
  run.examples = attention_examples(predictor, corpus, probes);
  const std::string main = to_string(AblationMetrics::of(cfg.model.task).main);
  std::vector<double> seconds, word_pad, sentence_pad;
  for (const EpochRecord& e : r.history) {
    run.dev_curve.push_back(e.dev(main));
    seconds.push_back(e.seconds);
    word_pad.push_back(e.padding_fraction);
    sentence_pad.push_back(e.sentence_padding_fraction);
  }
  run.padding_fraction = {mean(word_pad), mean(sentence_pad)};
  run.seconds_per_epoch = mean(seconds);
  return run;
}

// A finished run stored for this very config and data, or nothing (missing, unreadable,
// from another config, written before the test set appeared or went away, lacking the
// task's scores, or scored by older rules).
std::optional<AblationRun> stored_run(const fs::path& file, const std::string& fingerprint, bool has_test,
                                      Task task) {
  const AblationMetrics metrics = AblationMetrics::of(task);
  if (!fs::exists(file)) return std::nullopt;
  try {
    const json stored = json::parse(read_file(file.string()));
    if (stored.value("fingerprint", "") != fingerprint) return std::nullopt;
    if (task == Task::multilabel && stored.value("scoring", 1) != kScoringVersion) return std::nullopt;
    AblationRun run = AblationRun::from_json(stored.at("run"));
    if (run.test.has_value() != has_test) return std::nullopt;
    for (const SplitScores* s : {&run.dev, run.test ? &*run.test : &run.dev})
      if (!s->has(metrics.main) || !s->has(metrics.second)) return std::nullopt;
    return run;
  } catch (const std::exception&) {
    return std::nullopt;  // train again
  }
}

std::string run_name(const Config& cfg) {
  return std::string(to_string(cfg.model.mask)) + "-" + to_string(cfg.batching.strategy) + "-seed" +
         std::to_string(cfg.trainer.seed);
}

// Every run's config, in the order they are trained: by batching, then mask, then seed.
std::vector<Config> run_configs(const Config& base, const AblationOptions& options) {
  std::vector<Config> configs;
  for (BatchStrategy batching : options.batchings)
    for (MaskMode mask : options.masks)
      for (std::uint64_t seed : options.seeds) {
        Config cfg = base;
        cfg.model.mask = mask;
        cfg.batching.strategy = batching;
        cfg.trainer.seed = seed;
        configs.push_back(cfg);
      }
  return configs;
}

// Run `run` of `runs` (1-based): re-used when stored for this config, else trained (and
// stored); nothing when a stop was requested while it trained.
std::optional<AblationRun> load_or_train(const Config& cfg, const Corpus& corpus, const Probes& probes,
                                         const fs::path& runs_dir, const AblationOptions& options, int run, int runs) {
  const std::string name = run_name(cfg);
  const fs::path file = runs_dir / (name + ".json");
  const std::string fingerprint = config_to_json(cfg).dump();
  if (std::optional<AblationRun> stored = stored_run(file, fingerprint, !corpus.test.empty(), cfg.model.task)) {
    if (options.log) options.log("re-using " + file.string());
    return *stored;
  }
  if (options.log) options.log("training " + name);
  TrainOptions train_options;
  if (options.on_batch)
    train_options.on_batch = [&](const TrainProgress& p) { options.on_batch({run, runs, name, p}); };
  train_options.stop_requested = options.stop_requested;
  // A multi-label variant is calibrated (variant_model): its linear member's weight is then
  // chosen on calibrated blends, as han train chooses it.
  train_options.calibrate = cfg.model.task == Task::multilabel;
  const std::optional<AblationRun> trained = run_one(cfg, corpus, probes, train_options);
  if (trained) {
    const json stored = {{"fingerprint", fingerprint}, {"scoring", kScoringVersion}, {"run", trained->to_json()}};
    write_file_atomically(file.string(), stored.dump() + "\n");
  }
  return trained;
}

template <typename Get>
std::vector<double> column(const std::vector<AblationRun>& runs, Get get) {
  std::vector<double> out;
  for (const AblationRun& r : runs) out.push_back(get(r));
  return out;
}

// A variant's runs (one per seed) summarised; `renorm` holds renorm's runs with the
// same batching and seeds, or is null.
AblationVariant summarise(const std::vector<AblationRun>& rs, const std::vector<AblationRun>* renorm,
                          const std::vector<std::uint64_t>& seeds, const std::string& split, Task task) {
  const AblationMetrics metrics = AblationMetrics::of(task);
  auto main = [&](const AblationRun& r) { return r.scores_on(split).get(metrics.main); };
  auto second = [&](const AblationRun& r) { return r.scores_on(split).get(metrics.second); };
  AblationVariant v;
  v.task = task;
  v.mask = rs.front().mask;
  v.batching = rs.front().batching;
  v.seeds = seeds;
  v.evaluated_on = split;
  v.score = SeedSummary::of(column(rs, main));
  v.second_score = SeedSummary::of(column(rs, second));
  v.dev_score = SeedSummary::of(column(rs, [&](const AblationRun& r) { return r.dev.get(metrics.main); }));
  if (v.mask != MaskMode::renorm && renorm)
    v.vs_renorm = PairedComparison::of(
        paired_difference(column(rs, main), column(*renorm, main), lower_is_better(metrics.main)),
        paired_difference(column(rs, second), column(*renorm, second)), metrics.second);
  v.pad_attention_mass = {mean(column(rs, [](const AblationRun& r) { return r.pad_attention_mass.word; })),
                          mean(column(rs, [](const AblationRun& r) { return r.pad_attention_mass.sentence; }))};
  v.padding_fraction = {mean(column(rs, [](const AblationRun& r) { return r.padding_fraction.word; })),
                        mean(column(rs, [](const AblationRun& r) { return r.padding_fraction.sentence; }))};
  const std::vector<double> invariance = column(rs, [](const AblationRun& r) { return r.invariance_error; });
  v.invariance_error = *std::max_element(invariance.begin(), invariance.end());
  v.epochs_to_best = mean(column(rs, [](const AblationRun& r) { return static_cast<double>(r.best_epoch); }));
  v.seconds_per_epoch = mean(column(rs, [](const AblationRun& r) { return r.seconds_per_epoch; }));
  for (const AblationRun& r : rs) v.dev_curve.push_back(r.dev_curve);
  v.examples = rs.front().examples;
  return v;
}

// A document's gold answer as the report shows it: its label, its labels joined by ",",
// or its number.
std::string gold_text(const Corpus& corpus, const DocumentView& d, Task task) {
  if (task == Task::regression) return format_fixed(d.target, 4);
  if (task == Task::single) return corpus.labels[d.label];
  std::string out;
  for (std::int32_t c : d.label_set) out += (out.empty() ? "" : ",") + corpus.labels[c];
  return out;
}

std::vector<ExampleDocument> example_documents(const Corpus& corpus, const Probes& probes, Task task) {
  std::vector<ExampleDocument> examples;
  for (Index d : probes.examples) {
    TokenizedText words;
    for (const auto& s : corpus.dev[d].sentences) {
      words.emplace_back();
      for (std::int32_t id : s) words.back().emplace_back(corpus.vocab.word(id));
    }
    examples.push_back({d, gold_text(corpus, corpus.dev[d], task), words});
  }
  return examples;
}

// A stored run's config with what varies between an ablation's runs taken out: equal for
// every run of one ablation. Null when the fingerprint is unreadable.
json ablation_config(const std::string& fingerprint) {
  json j = json::parse(fingerprint, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return nullptr;
  if (j.contains("model")) j["model"].erase("mask");
  if (j.contains("batching")) j["batching"].erase("strategy");
  if (j.contains("trainer")) j["trainer"].erase("seed");
  return j;
}

// A run file stored for another config; `member_differs`: the runs' config is this one but
// for the linear member (han ablate blends it in only with --with-member).
struct ForeignRun {
  std::string file;  // "" when there is none
  bool member_differs = false;
};

json without_member(json config) {
  if (config.contains("model"))
    for (const char* key : {"linear_member", "linear_weight", "linear_text", "linear_chars"}) config["model"].erase(key);
  return config;
}

// The first run file in runs_dir stored for another config (broken ones do not count:
// they are trained again).
ForeignRun foreign_run(const fs::path& runs_dir, const Config& base) {
  const json own = ablation_config(config_to_json(base).dump());
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(runs_dir, ec))
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    try {
      const json stored = ablation_config(json::parse(read_file(file.string())).at("fingerprint").get<std::string>());
      if (!stored.is_null() && stored != own) return {file.string(), without_member(stored) == without_member(own)};
    } catch (const std::exception&) {
      // unreadable: trained again
    }
  }
  return {};
}

// --overwrite: what the folder held goes before anything is trained.
void clear_ablation_folder(const fs::path& dir) {
  remove_run_files(dir.string());
  for (const fs::path& p : {dir / "ablation.json", dir / "report.html", dir / "report.md", dir / "runs"}) {
    std::error_code ec;
    fs::remove_all(p, ec);
    if (ec) throw Error("cannot remove " + p.string() + ": " + ec.message(), 1);
  }
}

}  // namespace

void check_ablation_folder(const Config& base, const AblationOptions& options) {
  if (options.overwrite) return;
  const std::string& dir = options.output_dir;
  const std::string held = run_files_held(dir);
  if (!held.empty())
    throw Error(dir + " holds a training run (" + held + "); pass --overwrite to replace it with this ablation");
  const ForeignRun foreign = foreign_run(fs::path(dir) / "runs", base);
  if (foreign.member_differs)
    throw Error(dir + " holds an ablation " +
                (base.model.linear_member ? "of the HAN variants alone (" + foreign.file + "): drop --with-member"
                                          : "with the linear member blended in (" + foreign.file + "): add --with-member") +
                " to continue it, or pass --overwrite to replace it");
  if (!foreign.file.empty())
    throw Error(dir + " holds an ablation of another config (" + foreign.file +
                "); finished runs are re-used only for the same config: pass --overwrite to replace it");
}

AblationOutcome run_ablation(const Config& base, const Corpus& corpus, const AblationOptions& options) {
  if (corpus.dev.empty()) throw Error("han ablate needs a dev set (data.dev)");
  HAN_ASSERT(!options.output_dir.empty());
  check_ablation_folder(base, options);
  if (options.overwrite) clear_ablation_folder(options.output_dir);
  const fs::path runs_dir = fs::path(options.output_dir) / "runs";
  std::error_code ec;
  fs::create_directories(runs_dir, ec);
  if (ec) throw Error("cannot create " + runs_dir.string() + ": " + ec.message(), 1);
  const Probes probes = choose_probes(corpus.dev);

  // runs[(batching, mask)][seed index]
  std::map<std::pair<int, int>, std::vector<AblationRun>> runs;
  const std::vector<Config> configs = run_configs(base, options);
  const int total = static_cast<int>(configs.size());
  auto stopped = [&] { return options.stop_requested && options.stop_requested(); };
  for (int i = 0; i < total; ++i) {
    const Config& cfg = configs[i];
    const std::optional<AblationRun> run =
        stopped() ? std::nullopt : load_or_train(cfg, corpus, probes, runs_dir, options, i + 1, total);
    if (!run) return {std::nullopt, i, total};
    runs[{static_cast<int>(cfg.batching.strategy), static_cast<int>(cfg.model.mask)}].push_back(*run);
  }
  if (stopped()) return {std::nullopt, total, total};

  AblationResult result;
  result.config = base;
  result.evaluated_on = corpus.test.empty() ? "dev" : "test";
  for (const auto& [key, rs] : runs) {
    const auto renorm = runs.find({key.first, static_cast<int>(MaskMode::renorm)});
    result.variants.push_back(
        summarise(rs, renorm == runs.end() ? nullptr : &renorm->second, options.seeds, result.evaluated_on,
                  base.model.task));
  }
  result.example_documents = example_documents(corpus, probes, base.model.task);
  result.train_documents = corpus.train.size();
  result.dev_documents = corpus.dev.size();
  result.test_documents = corpus.test.size();
  return {result, total, total};
}

}  // namespace han
