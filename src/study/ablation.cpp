#include "han/study/ablation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>

#include "han/text/batcher.h"
#include "han/core/error.h"
#include "han/core/io.h"
#include "han/infer/evaluation.h"
#include "han/infer/predictor.h"
#include "han/study/statistics.h"
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

Probes choose_probes(const std::vector<Document>& dev) {
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

// Scored in the batches training scored its dev set in.
json metrics_json(const Predictor& predictor, const std::vector<Document>& docs, const Config& cfg,
                  PaddingAttention* padding) {
  if (docs.empty()) return nullptr;
  const Metrics m = evaluate(predictor, docs, scoring_batches(docs, cfg), padding);
  return {{"accuracy", m.accuracy}, {"macro_f1", m.macro_f1}};
}

json run_one(const Config& cfg, const Corpus& corpus, const Probes& probes) {
  const TrainResult r = train_model(cfg, corpus);
  const Predictor predictor(r.best_params, cfg.model, cfg.trainer.threads);
  PaddingAttention pad;
  const json dev = metrics_json(predictor, corpus.dev, cfg, &pad);
  const json test = metrics_json(predictor, corpus.test, cfg, nullptr);

  double invariance = 0;
  for (Index d : probes.checked) {
    std::vector<Index> company = probes.longest;
    company.push_back(d);
    const Matrix alone = predictor.predict_batch(corpus.dev, {d});
    const Matrix batched = predictor.predict_batch(corpus.dev, company);
    invariance = std::max<double>(invariance, (alone.col(0) - batched.col(batched.cols() - 1)).cwiseAbs().maxCoeff());
  }
  json examples = json::array();
  for (Index d : probes.examples) {
    std::vector<Index> company = probes.longest;
    company.push_back(d);
    std::vector<Explanation> ex;
    const Matrix probs = predictor.predict_batch(corpus.dev, company, &ex);
    const Vector p = probs.col(probs.cols() - 1);
    Index best;
    p.maxCoeff(&best);
    examples.push_back({{"document", d}, {"label", corpus.labels[best]}, {"probability", p(best)},
                        {"sentence_weights", ex.back().sentence_weights}, {"word_weights", ex.back().word_weights}});
  }
  std::vector<double> curve, seconds, word_pad, sentence_pad;
  for (const EpochRecord& e : r.history) {
    curve.push_back(e.dev_accuracy);
    seconds.push_back(e.seconds);
    word_pad.push_back(e.padding_fraction);
    sentence_pad.push_back(e.sentence_padding_fraction);
  }
  return {{"mask", to_string(cfg.model.mask)}, {"batching", to_string(cfg.batching.strategy)},
          {"seed", cfg.trainer.seed}, {"dev_curve", curve}, {"best_epoch", r.best_epoch},
          {"dev", dev}, {"test", test},
          {"padding_fraction", {{"word", mean(word_pad)}, {"sentence", mean(sentence_pad)}}},
          {"pad_attention_mass", {{"word", pad.word()}, {"sentence", pad.sentence()}}},
          {"invariance_error", invariance}, {"seconds_per_epoch", mean(seconds)}, {"examples", examples}};
}

std::vector<double> column(const std::vector<json>& runs, const std::function<double(const json&)>& get) {
  std::vector<double> out;
  for (const json& r : runs) out.push_back(get(r));
  return out;
}

json summary(const std::vector<double>& values) {
  return {{"mean", mean(values)}, {"sd", sample_sd(values)}, {"values", values}};
}

}  // namespace

nlohmann::json run_ablation(const Config& base, const Corpus& corpus, const AblationOptions& options) {
  if (corpus.dev.empty()) throw Error("han ablate needs a dev set (data.dev)");
  HAN_ASSERT(!options.output_dir.empty());
  const fs::path runs_dir = fs::path(options.output_dir) / "runs";
  std::error_code ec;
  fs::create_directories(runs_dir, ec);
  if (ec) throw Error("cannot create " + runs_dir.string() + ": " + ec.message(), 1);
  const Probes probes = choose_probes(corpus.dev);
  const std::string eval_split = corpus.test.empty() ? "dev" : "test";

  // run[(batching, mask)][seed index]
  std::map<std::pair<int, int>, std::vector<json>> runs;
  for (BatchStrategy batching : options.batchings) {
    for (MaskMode mask : options.masks) {
      for (std::uint64_t seed : options.seeds) {
        Config cfg = base;
        cfg.model.mask = mask;
        cfg.batching.strategy = batching;
        cfg.trainer.seed = seed;
        const std::string name = std::string(to_string(mask)) + "-" + to_string(batching) + "-seed" + std::to_string(seed);
        const fs::path file = runs_dir / (name + ".json");
        const std::string fingerprint = config_to_json(cfg).dump();
        json run;
        if (fs::exists(file)) {
          try {
            json stored = json::parse(read_file(file.string()));
            if (stored.value("fingerprint", "") == fingerprint) run = stored["run"];
          } catch (const std::exception&) {
            // unreadable or from another config: train again
          }
        }
        if (run.is_null()) {
          if (options.log) options.log("training " + name);
          run = run_one(cfg, corpus, probes);
          write_file_atomically(file.string(), json({{"fingerprint", fingerprint}, {"run", run}}).dump() + "\n");
        } else if (options.log) {
          options.log("re-using " + file.string());
        }
        runs[{static_cast<int>(batching), static_cast<int>(mask)}].push_back(run);
      }
    }
  }

  auto accuracy = [&](const json& r) { return r[eval_split]["accuracy"].get<double>(); };
  auto macro_f1 = [&](const json& r) { return r[eval_split]["macro_f1"].get<double>(); };
  json variants = json::array();
  for (const auto& entry : runs) {
    const auto& key = entry.first;
    const std::vector<json>& rs = entry.second;
    const json& first = rs.front();
    json v = {{"mask", first["mask"]}, {"batching", first["batching"]}, {"seeds", options.seeds},
              {"evaluated_on", eval_split},
              {"accuracy", summary(column(rs, accuracy))},
              {"macro_f1", summary(column(rs, macro_f1))},
              {"dev_accuracy", summary(column(rs, [](const json& r) { return r["dev"]["accuracy"].get<double>(); }))}};
    const auto renorm = runs.find({key.first, static_cast<int>(MaskMode::renorm)});
    if (first["mask"] == "renorm" || renorm == runs.end()) {
      v["vs_renorm"] = nullptr;
    } else {
      const PairedDifference d = paired_difference(column(rs, accuracy), column(renorm->second, accuracy));
      const PairedDifference f = paired_difference(column(rs, macro_f1), column(renorm->second, macro_f1));
      v["vs_renorm"] = {{"mean_diff", d.mean_diff}, {"ci95", {d.ci_low, d.ci_high}}, {"wins", d.wins},
                        {"ties", d.ties}, {"macro_f1_mean_diff", f.mean_diff}, {"macro_f1_ci95", {f.ci_low, f.ci_high}},
                        {"interval", "paired t, 95 %"}};
    }
    auto mean_of = [&](const char* a, const char* b) {
      return mean(column(rs, [&](const json& r) { return r[a][b].get<double>(); }));
    };
    v["pad_attention_mass"] = {{"word", mean_of("pad_attention_mass", "word")},
                               {"sentence", mean_of("pad_attention_mass", "sentence")}};
    v["padding_fraction"] = {{"word", mean_of("padding_fraction", "word")},
                             {"sentence", mean_of("padding_fraction", "sentence")}};
    const std::vector<double> invariance = column(rs, [](const json& r) { return r["invariance_error"].get<double>(); });
    v["invariance_error"] = *std::max_element(invariance.begin(), invariance.end());
    v["epochs_to_best"] = mean(column(rs, [](const json& r) { return r["best_epoch"].get<double>(); }));
    v["seconds_per_epoch"] = mean(column(rs, [](const json& r) { return r["seconds_per_epoch"].get<double>(); }));
    v["dev_curve"] = json::array();
    v["examples"] = first["examples"];
    for (const json& r : rs) v["dev_curve"].push_back(r["dev_curve"]);
    variants.push_back(v);
  }
  json examples = json::array();
  for (Index d : probes.examples) {
    json words = json::array();
    for (const auto& s : corpus.dev[d].sentences) {
      json ws = json::array();
      for (std::int32_t id : s) ws.push_back(corpus.vocab.word(id));
      words.push_back(ws);
    }
    examples.push_back({{"document", d}, {"gold", corpus.labels[corpus.dev[d].label]}, {"words", words}});
  }
  return {{"config", config_to_json(base)}, {"evaluated_on", eval_split}, {"variants", variants},
          {"example_documents", examples},
          {"data", {{"train", corpus.train.size()}, {"dev", corpus.dev.size()}, {"test", corpus.test.size()}}}};
}

std::string ablation_table(const nlohmann::json& a) {
  std::string out;
  char buf[512];
  std::snprintf(buf, sizeof buf, "%-8s %-8s %-17s %-17s %-26s %-5s %-13s %-13s %-9s %-6s %s\n", "mask", "batching",
                ("acc (" + a["evaluated_on"].get<std::string>() + ")").c_str(), "macro-F1", "Δacc vs renorm [95% CI]",
                "wins", "pad mass w/s", "padding w/s", "invar.", "best", "s/epoch");
  out += buf;
  for (const json& v : a["variants"]) {
    std::string diff = "—", wins = "—";
    if (!v["vs_renorm"].is_null()) {
      std::snprintf(buf, sizeof buf, "%+.4f [%+.4f, %+.4f]", v["vs_renorm"]["mean_diff"].get<double>(),
                    v["vs_renorm"]["ci95"][0].get<double>(), v["vs_renorm"]["ci95"][1].get<double>());
      diff = buf;
      wins = std::to_string(v["vs_renorm"]["wins"].get<int>()) + "/" + std::to_string(v["seeds"].size());
    }
    std::snprintf(buf, sizeof buf, "%-8s %-8s %.4f ± %.4f   %.4f ± %.4f   %-26s %-5s %.3f / %.3f  %.3f / %.3f  %-9.2g %-6.1f %.1f\n",
                  v["mask"].get<std::string>().c_str(), v["batching"].get<std::string>().c_str(),
                  v["accuracy"]["mean"].get<double>(), v["accuracy"]["sd"].get<double>(),
                  v["macro_f1"]["mean"].get<double>(), v["macro_f1"]["sd"].get<double>(), diff.c_str(), wins.c_str(),
                  v["pad_attention_mass"]["word"].get<double>(), v["pad_attention_mass"]["sentence"].get<double>(),
                  v["padding_fraction"]["word"].get<double>(), v["padding_fraction"]["sentence"].get<double>(),
                  v["invariance_error"].get<double>(), v["epochs_to_best"].get<double>(),
                  v["seconds_per_epoch"].get<double>());
    out += buf;
  }
  return out;
}

}  // namespace han
