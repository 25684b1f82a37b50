#include "han/study/ablation_results.h"

#include <cmath>
#include <limits>

#include "han/core/error.h"
#include "han/core/json_text.h"

namespace han {
namespace {

using nlohmann::json;

json optional_json(const std::optional<double>& x) { return x ? json(*x) : json(nullptr); }

std::optional<double> optional_double(const json& j) {
  return j.is_null() ? std::nullopt : std::optional<double>(j.get<double>());
}

json interval_json(const std::optional<Interval>& ci) { return ci ? json({ci->low, ci->high}) : json(nullptr); }

std::optional<Interval> interval_from(const json& j) {
  if (j.is_null()) return std::nullopt;
  if (!j.is_array() || j.size() != 2) throw Error("a confidence interval must be [low, high], not " + j.dump());
  return Interval{j[0].get<double>(), j[1].get<double>()};
}

template <typename T>
json array_json(const std::vector<T>& items) {
  json out = json::array();
  for (const T& item : items) out.push_back(item.to_json());
  return out;
}

template <typename T>
std::vector<T> array_from(const json& j) {
  if (!j.is_array()) throw Error("expected an array, not " + j.dump());
  std::vector<T> out;
  for (const json& item : j) out.push_back(T::from_json(item));
  return out;
}

}  // namespace

SplitScores SplitScores::of(const TaskScores& scores) {
  SplitScores s;
  for (const auto& [name, value] : scores.headline())
    if (name != "loss") s.scores[name] = value;
  return s;
}

double SplitScores::get(SelectMetric metric) const {
  const auto it = scores.find(to_string(metric));
  HAN_ASSERT(it != scores.end());
  return it->second;
}

json SplitScores::to_json() const {
  json j = json::object();
  for (const auto& [name, value] : scores) j[name] = finite_or_null(value);
  return j;
}

SplitScores SplitScores::from_json(const json& j) {
  if (!j.is_object() || j.empty()) throw Error("split scores must be an object of scores, not " + j.dump());
  SplitScores s;
  for (const auto& [name, value] : j.items())
    s.scores[name] = value.is_null() ? std::numeric_limits<double>::quiet_NaN() : value.get<double>();
  return s;
}

json LevelFigures::to_json() const { return {{"word", word}, {"sentence", sentence}}; }

LevelFigures LevelFigures::from_json(const json& j) {
  return {j.at("word").get<double>(), j.at("sentence").get<double>()};
}

json AttentionExample::to_json() const {
  return {{"document", document}, {"label", label}, {"probability", probability},
          {"sentence_weights", sentence_weights}, {"word_weights", word_weights}};
}

AttentionExample AttentionExample::from_json(const json& j) {
  AttentionExample e;
  e.document = j.at("document").get<Index>();
  e.label = j.at("label").get<std::string>();
  e.probability = j.at("probability").get<double>();
  e.sentence_weights = j.at("sentence_weights").get<std::vector<float>>();
  e.word_weights = j.at("word_weights").get<std::vector<std::vector<float>>>();
  return e;
}

const SplitScores& AblationRun::scores_on(const std::string& split) const {
  if (split == "dev") return dev;
  HAN_ASSERT(split == "test" && test.has_value());
  return *test;
}

json AblationRun::to_json() const {
  return {{"mask", to_string(mask)},
          {"batching", to_string(batching)},
          {"seed", seed},
          {"dev_curve", dev_curve},
          {"best_epoch", best_epoch},
          {"dev", dev.to_json()},
          {"test", test ? test->to_json() : json(nullptr)},
          {"padding_fraction", padding_fraction.to_json()},
          {"pad_attention_mass", pad_attention_mass.to_json()},
          {"invariance_error", invariance_error},
          {"seconds_per_epoch", seconds_per_epoch},
          {"examples", array_json(examples)}};
}

AblationRun AblationRun::from_json(const json& j) {
  AblationRun r;
  r.mask = parse_enum<MaskMode>(j.at("mask").get<std::string>(), "mask");
  r.batching = parse_enum<BatchStrategy>(j.at("batching").get<std::string>(), "batching");
  r.seed = j.at("seed").get<std::uint64_t>();
  r.dev_curve = j.at("dev_curve").get<std::vector<double>>();
  r.best_epoch = j.at("best_epoch").get<int>();
  r.dev = SplitScores::from_json(j.at("dev"));
  if (!j.at("test").is_null()) r.test = SplitScores::from_json(j.at("test"));
  r.padding_fraction = LevelFigures::from_json(j.at("padding_fraction"));
  r.pad_attention_mass = LevelFigures::from_json(j.at("pad_attention_mass"));
  r.invariance_error = j.at("invariance_error").get<double>();
  r.seconds_per_epoch = j.at("seconds_per_epoch").get<double>();
  r.examples = array_from<AttentionExample>(j.at("examples"));
  return r;
}

SeedSummary SeedSummary::of(const std::vector<double>& values) { return {han::mean(values), sample_sd(values), values}; }

json SeedSummary::to_json() const { return {{"mean", mean}, {"sd", optional_json(sd)}, {"values", values}}; }

SeedSummary SeedSummary::from_json(const json& j) {
  return {j.at("mean").get<double>(), optional_double(j.at("sd")), j.at("values").get<std::vector<double>>()};
}

PairedComparison PairedComparison::of(const PairedDifference& main, const PairedDifference& second_score,
                                      SelectMetric second) {
  return {main.mean_diff, main.ci95, main.wins, main.ties, second, second_score.mean_diff, second_score.ci95};
}

json PairedComparison::to_json() const {
  const std::string name = to_string(second);
  return {{"mean_diff", mean_diff},
          {"ci95", interval_json(ci95)},
          {"wins", wins},
          {"ties", ties},
          {name + "_mean_diff", second_mean_diff},
          {name + "_ci95", interval_json(second_ci95)},
          {"interval", "paired t, 95 %"}};
}

PairedComparison PairedComparison::from_json(const json& j, SelectMetric second) {
  const std::string name = to_string(second);
  PairedComparison c;
  c.mean_diff = j.at("mean_diff").get<double>();
  c.ci95 = interval_from(j.at("ci95"));
  c.wins = j.at("wins").get<int>();
  c.ties = j.at("ties").get<int>();
  c.second = second;
  c.second_mean_diff = j.at(name + "_mean_diff").get<double>();
  c.second_ci95 = interval_from(j.at(name + "_ci95"));
  return c;
}

json AblationVariant::to_json() const {
  const AblationMetrics metrics = AblationMetrics::of(task);
  const std::string main = to_string(metrics.main);
  json j = {{"mask", to_string(mask)},
            {"batching", to_string(batching)},
            {"seeds", seeds},
            {"evaluated_on", evaluated_on},
            {main, score.to_json()},
            {to_string(metrics.second), second_score.to_json()},
            {"dev_" + main, dev_score.to_json()},
            {"vs_renorm", vs_renorm ? vs_renorm->to_json() : json(nullptr)},
            {"pad_attention_mass", pad_attention_mass.to_json()},
            {"padding_fraction", padding_fraction.to_json()},
            {"invariance_error", invariance_error},
            {"epochs_to_best", epochs_to_best},
            {"seconds_per_epoch", seconds_per_epoch},
            {"dev_curve", dev_curve},
            {"examples", array_json(examples)}};
  if (task != Task::single) j["task"] = to_string(task);  // a single-label file as before tasks
  return j;
}

AblationVariant AblationVariant::from_json(const json& j) {
  AblationVariant v;
  if (j.contains("task")) v.task = parse_enum<Task>(j.at("task").get<std::string>(), "task");
  const AblationMetrics metrics = AblationMetrics::of(v.task);
  const std::string main = to_string(metrics.main);
  v.mask = parse_enum<MaskMode>(j.at("mask").get<std::string>(), "mask");
  v.batching = parse_enum<BatchStrategy>(j.at("batching").get<std::string>(), "batching");
  v.seeds = j.at("seeds").get<std::vector<std::uint64_t>>();
  v.evaluated_on = j.at("evaluated_on").get<std::string>();
  v.score = SeedSummary::from_json(j.at(main));
  v.second_score = SeedSummary::from_json(j.at(to_string(metrics.second)));
  v.dev_score = SeedSummary::from_json(j.at("dev_" + main));
  if (!j.at("vs_renorm").is_null()) v.vs_renorm = PairedComparison::from_json(j.at("vs_renorm"), metrics.second);
  v.pad_attention_mass = LevelFigures::from_json(j.at("pad_attention_mass"));
  v.padding_fraction = LevelFigures::from_json(j.at("padding_fraction"));
  v.invariance_error = j.at("invariance_error").get<double>();
  v.epochs_to_best = j.at("epochs_to_best").get<double>();
  v.seconds_per_epoch = j.at("seconds_per_epoch").get<double>();
  v.dev_curve = j.at("dev_curve").get<std::vector<std::vector<double>>>();
  v.examples = array_from<AttentionExample>(j.at("examples"));
  return v;
}

json ExampleDocument::to_json() const { return {{"document", document}, {"gold", gold}, {"words", words}}; }

ExampleDocument ExampleDocument::from_json(const json& j) {
  return {j.at("document").get<Index>(), j.at("gold").get<std::string>(), j.at("words").get<TokenizedText>()};
}

json AblationResult::to_json() const {
  return {{"config", config_to_json(config)},
          {"evaluated_on", evaluated_on},
          {"variants", array_json(variants)},
          {"example_documents", array_json(example_documents)},
          {"data", {{"train", train_documents}, {"dev", dev_documents}, {"test", test_documents}}}};
}

AblationResult AblationResult::from_json(const json& j) {
  AblationResult a;
  a.config = stored_config_from_json(j.at("config"), "ablation config");
  a.evaluated_on = j.at("evaluated_on").get<std::string>();
  a.variants = array_from<AblationVariant>(j.at("variants"));
  a.example_documents = array_from<ExampleDocument>(j.at("example_documents"));
  const json& data = j.at("data");
  a.train_documents = data.at("train").get<std::size_t>();
  a.dev_documents = data.at("dev").get<std::size_t>();
  a.test_documents = data.at("test").get<std::size_t>();
  return a;
}

}  // namespace han
