#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "han/core/config.h"
#include "han/core/error.h"
#include "support/paths.h"

using Catch::Contains;
using Catch::StartsWith;
using nlohmann::json;

namespace {

namespace fs = std::filesystem;

using han::test::TempDir;

han::Config parse(const std::string& text) { return han::config_from_json(json::parse(text), "configs/x.json"); }

}  // namespace

TEST_CASE("defaults match the paper (min_count: auto) and round-trip through JSON", "[config]") {
  const han::Config d;
  CHECK(d.model.embedding_dim == 200);
  CHECK(d.model.word_hidden == 50);
  CHECK(d.model.attention_dim == 100);
  CHECK(d.batching.batch_size == 64);
  // The paper kept words seen more than 5 times; "auto" does that unless those words hold
  // under 95% of the training tokens (text/vocab.h).
  CHECK(d.tokenizer.min_count == han::kAutoMinCount);
  CHECK(han::config_to_json(d)["tokenizer"]["min_count"] == "auto");

  const json j = han::config_to_json(d);
  for (const char* s : {"data", "tokenizer", "model", "batching", "optimizer", "trainer"}) {
    REQUIRE(j.contains(s));
    CHECK(j[s].is_object());
  }
  CHECK(j["model"]["mask"] == "renorm");
  CHECK(j["model"]["embeddings"].is_null());
  CHECK(j["optimizer"]["name"] == "adam");
  CHECK(j["data"]["format"] == "auto");
  CHECK(j["trainer"]["seed"] == 1);

  // Every key parses back to the same value, and serialises identically again.
  const han::Config back = han::config_from_json(j, "x");
  CHECK(han::config_to_json(back) == j);
  // An empty object is the defaults.
  CHECK(han::config_to_json(han::config_from_json(json::object(), "x")) == j);
}

TEST_CASE("non-default values round-trip", "[config]") {
  const han::Config c = parse(R"({
    "data": {"train": "a.jsonl", "dev": "b.jsonl", "test": "", "format": "tsv"},
    "tokenizer": {"lowercase": false, "max_sentences": 7, "max_words": 9, "min_count": 1, "max_vocab": 3},
    "model": {"embedding_dim": 8, "word_hidden": 4, "sentence_hidden": 5, "attention_dim": 6,
              "mask": "additive", "pooling": "mean", "dropout": 0.25, "embeddings": "glove.txt",
              "freeze_embeddings": true},
    "batching": {"strategy": "random", "batch_size": 3, "maxi_batch": 2},
    "optimizer": {"name": "sgd", "lr": 10, "momentum": 0, "beta1": 0.5, "beta2": 0.25, "eps": 1,
                  "weight_decay": 1, "clip_norm": 0, "schedule": "linear"},
    "trainer": {"epochs": 2, "patience": 0, "seed": 9007199254740992, "threads": 1024}
  })");
  CHECK(c.data.format == han::DataFormat::tsv);
  CHECK(c.data.dev == "b.jsonl");
  CHECK_FALSE(c.tokenizer.lowercase);
  CHECK(c.tokenizer.max_vocab == 3);
  CHECK(c.model.mask == han::MaskMode::additive);
  CHECK(c.model.pooling == han::Pooling::mean);
  CHECK(c.model.dropout == 0.25);
  CHECK(c.model.embeddings == "glove.txt");
  CHECK(c.model.freeze_embeddings == han::Switch::on);
  CHECK(c.batching.strategy == han::BatchStrategy::random);
  CHECK(c.optimizer.name == han::OptimizerName::sgd);
  CHECK(c.optimizer.lr == 10.0);
  CHECK(c.optimizer.schedule == han::LrSchedule::linear);
  CHECK(c.trainer.seed == (std::uint64_t{1} << 53));
  CHECK(c.trainer.threads == 1024);

  const json j = han::config_to_json(c);
  CHECK(j["model"]["embeddings"] == "glove.txt");
  CHECK(j["trainer"]["seed"] == (std::uint64_t{1} << 53));
  CHECK(han::config_to_json(han::config_from_json(j, "x")) == j);
}

TEST_CASE("enum names and parse functions", "[config]") {
  CHECK(std::string(han::to_string(han::MaskMode::none)) == "none");
  CHECK(std::string(han::to_string(han::MaskMode::renorm)) == "renorm");
  CHECK(std::string(han::to_string(han::MaskMode::additive)) == "additive");
  CHECK(std::string(han::to_string(han::Pooling::mean)) == "mean");
  CHECK(std::string(han::to_string(han::BatchStrategy::random)) == "random");
  CHECK(std::string(han::to_string(han::DataFormat::folder)) == "folder");
  CHECK(std::string(han::to_string(han::OptimizerName::sgd)) == "sgd");
  CHECK(std::string(han::to_string(han::LrSchedule::linear)) == "linear");
  CHECK(han::parse_enum<han::MaskMode>("additive", "--masks") == han::MaskMode::additive);
  CHECK(han::parse_enum<han::BatchStrategy>("bucket", "--batching") == han::BatchStrategy::bucket);
  CHECK(han::parse_enum<han::DataFormat>("fasttext", "data.format") == han::DataFormat::fasttext);
  REQUIRE_THROWS_AS(han::parse_enum<han::MaskMode>("Renorm", "--masks"), han::Error);
  REQUIRE_THROWS_WITH(han::parse_enum<han::MaskMode>("zero", "--masks"),
                      Contains("--masks") && Contains("\"zero\"") && Contains("none") &&
                          Contains("renorm") && Contains("additive"));
  REQUIRE_THROWS_WITH(han::parse_enum<han::BatchStrategy>("sorted", "--batching"),
                      Contains("--batching") && Contains("bucket") && Contains("random"));
  REQUIRE_THROWS_WITH(han::parse_enum<han::DataFormat>("csv", "data.format"),
                      Contains("data.format") && Contains("jsonl") && Contains("folder"));
}

TEST_CASE("unknown keys are errors naming the full key path", "[config]") {
  REQUIRE_THROWS_WITH(parse(R"({"model": {"hiden": 3}})"),
                      Contains("configs/x.json: unknown key \"model.hiden\"") &&
                          Contains("\"model.word_hidden\" or \"model.sentence_hidden\""));
  REQUIRE_THROWS_WITH(parse(R"({"model": {"lr": 0.1}})"),
                      Contains("unknown key \"model.lr\"") && Contains("did you mean \"optimizer.lr\""));
  REQUIRE_THROWS_WITH(parse(R"({"mask": "none"})"),
                      Contains("unknown key \"mask\"") && Contains("did you mean \"model.mask\""));
  REQUIRE_THROWS_WITH(parse(R"({"model": {"word_hiden": 3}})"),
                      Contains("unknown key \"model.word_hiden\"") &&
                          Contains("did you mean \"model.word_hidden\""));
  REQUIRE_THROWS_WITH(parse(R"({"modle": {}})"),
                      Contains("configs/x.json: unknown key \"modle\"") &&
                          Contains("did you mean \"model\""));
  REQUIRE_THROWS_WITH(parse(R"({"trainer": {"epochs": 3, "zzzzzzzzzz": 1}})"),
                      Contains("unknown key \"trainer.zzzzzzzzzz\""));
  REQUIRE_THROWS_AS(parse(R"({"data": {"train": "a", "valid": "b"}})"), han::Error);
  try {
    parse(R"({"extra": 1})");
    FAIL("no error");
  } catch (const han::Error& e) {
    CHECK(e.exit_code() == 2);
  }
}

TEST_CASE("the top level and every section must be objects", "[config]") {
  REQUIRE_THROWS_WITH(parse("[1, 2]"), Contains("configs/x.json") && Contains("object"));
  REQUIRE_THROWS_WITH(parse("3"), Contains("object"));
  REQUIRE_THROWS_WITH(parse(R"({"model": 3})"), Contains("configs/x.json: model: expected an object"));
  REQUIRE_THROWS_WITH(parse(R"({"trainer": null})"), Contains("trainer: expected an object"));
  REQUIRE_THROWS_WITH(parse(R"({"data": ["a"]})"), Contains("data: expected an object"));
}

TEST_CASE("wrong types are errors naming the key path", "[config]") {
  REQUIRE_THROWS_WITH(parse(R"({"model": {"dropout": "high"}})"),
                      Contains("configs/x.json: model.dropout: expected a number, got \"high\""));
  // int: integer JSON numbers only.
  REQUIRE_THROWS_WITH(parse(R"({"trainer": {"epochs": 2.5}})"),
                      Contains("trainer.epochs: expected an integer, got 2.5"));
  REQUIRE_THROWS_WITH(parse(R"({"trainer": {"epochs": 2.0}})"),
                      Contains("trainer.epochs: expected an integer"));
  REQUIRE_THROWS_WITH(parse(R"({"trainer": {"epochs": "2"}})"),
                      Contains("trainer.epochs: expected an integer, got \"2\""));
  REQUIRE_THROWS_WITH(parse(R"({"trainer": {"epochs": true}})"),
                      Contains("trainer.epochs: expected an integer, got true"));
  REQUIRE_THROWS_WITH(parse(R"({"trainer": {"seed": null}})"), Contains("trainer.seed: expected an integer"));
  // double: any number, nothing else.
  CHECK(parse(R"({"optimizer": {"lr": 1}})").optimizer.lr == 1.0);
  REQUIRE_THROWS_WITH(parse(R"({"optimizer": {"lr": false}})"), Contains("optimizer.lr: expected a number"));
  // bool: only true/false.
  REQUIRE_THROWS_WITH(parse(R"({"tokenizer": {"lowercase": 1}})"),
                      Contains("tokenizer.lowercase: expected true or false, got 1"));
  REQUIRE_THROWS_WITH(parse(R"({"tokenizer": {"lowercase": "yes"}})"), Contains("tokenizer.lowercase"));
  // strings.
  REQUIRE_THROWS_WITH(parse(R"({"data": {"train": 5}})"), Contains("data.train: expected a string, got 5"));
  REQUIRE_THROWS_WITH(parse(R"({"data": {"dev": null}})"), Contains("data.dev: expected a string"));
  // embeddings: null or string.
  CHECK(parse(R"({"model": {"embeddings": null}})").model.embeddings.empty());
  CHECK(parse(R"({"model": {"embeddings": "v.txt"}})").model.embeddings == "v.txt");
  REQUIRE_THROWS_WITH(parse(R"({"model": {"embeddings": 0}})"), Contains("model.embeddings: expected a string or null"));
  // enums: only their listed strings.
  REQUIRE_THROWS_WITH(parse(R"({"model": {"mask": "zero"}})"),
                      Contains("configs/x.json: model.mask") && Contains("\"zero\"") && Contains("renorm"));
  REQUIRE_THROWS_WITH(parse(R"({"model": {"mask": 1}})"), Contains("model.mask: expected one of none|renorm|additive"));
  REQUIRE_THROWS_WITH(parse(R"({"data": {"format": "csv"}})"), Contains("data.format") && Contains("fasttext"));
  REQUIRE_THROWS_WITH(parse(R"({"optimizer": {"name": "rmsprop"}})"), Contains("optimizer.name") && Contains("sgd"));
  REQUIRE_THROWS_WITH(parse(R"({"optimizer": {"schedule": "cosin"}})"), Contains("optimizer.schedule") && Contains("cosine"));
  REQUIRE_THROWS_WITH(parse(R"({"model": {"pooling": "max"}})"), Contains("model.pooling") && Contains("attention"));
  REQUIRE_THROWS_WITH(parse(R"({"batching": {"strategy": "sorted"}})"), Contains("batching.strategy") && Contains("bucket"));
}

TEST_CASE("out-of-range values are errors naming the key path and range", "[config]") {
  REQUIRE_THROWS_WITH(parse(R"({"trainer": {"epochs": 0}})"),
                      Contains("configs/x.json: trainer.epochs: must be between 1 and 100000, got 0"));
  REQUIRE_THROWS_WITH(parse(R"({"trainer": {"epochs": 100001}})"), Contains("trainer.epochs: must be between"));
  REQUIRE_THROWS_WITH(parse(R"({"trainer": {"epochs": 99999999999999999999}})"), Contains("trainer.epochs"));
  REQUIRE_THROWS_WITH(parse(R"({"trainer": {"patience": -1}})"), Contains("trainer.patience: must be between 0 and 100000, got -1"));
  REQUIRE_THROWS_WITH(parse(R"({"trainer": {"seed": -1}})"), Contains("trainer.seed: must be between 0 and"));
  REQUIRE_THROWS_WITH(parse(R"({"trainer": {"seed": 9007199254740993}})"), Contains("trainer.seed"));
  REQUIRE_THROWS_WITH(parse(R"({"trainer": {"seed": 18446744073709551615}})"), Contains("trainer.seed"));
  REQUIRE_THROWS_WITH(parse(R"({"trainer": {"threads": 1025}})"), Contains("trainer.threads"));
  REQUIRE_THROWS_WITH(parse(R"({"tokenizer": {"max_vocab": 2}})"), Contains("tokenizer.max_vocab: must be between 3 and 10000000, got 2"));
  REQUIRE_THROWS_WITH(parse(R"({"tokenizer": {"min_count": 0}})"), Contains("tokenizer.min_count"));
  REQUIRE_THROWS_WITH(parse(R"({"tokenizer": {"max_words": 0}})"), Contains("tokenizer.max_words"));
  REQUIRE_THROWS_WITH(parse(R"({"model": {"embedding_dim": 4097}})"), Contains("model.embedding_dim: must be between 1 and 4096"));
  REQUIRE_THROWS_WITH(parse(R"({"batching": {"batch_size": 0}})"), Contains("batching.batch_size"));
  REQUIRE_THROWS_WITH(parse(R"({"batching": {"maxi_batch": 0}})"), Contains("batching.maxi_batch"));
  // Real ranges with open and closed ends.
  REQUIRE_THROWS_WITH(parse(R"({"model": {"dropout": 1.0}})"), Contains("model.dropout: must be in [0.0, 1.0), got 1.0"));
  CHECK(parse(R"({"model": {"dropout": 0}})").model.dropout == 0.0);
  REQUIRE_THROWS_WITH(parse(R"({"model": {"dropout": -0.1}})"), Contains("model.dropout"));
  REQUIRE_THROWS_WITH(parse(R"({"optimizer": {"lr": 0}})"), Contains("optimizer.lr: must be in (0.0, 10.0], got 0"));
  REQUIRE_THROWS_WITH(parse(R"({"optimizer": {"lr": 10.5}})"), Contains("optimizer.lr"));
  REQUIRE_THROWS_WITH(parse(R"({"optimizer": {"momentum": 1}})"), Contains("optimizer.momentum"));
  CHECK(parse(R"({"optimizer": {"embedding_lr_scale": 0}})").optimizer.embedding_lr_scale == 0.0);
  CHECK(parse(R"({"optimizer": {"embedding_lr_scale": 0.1}})").optimizer.embedding_lr_scale == 0.1);
  REQUIRE_THROWS_WITH(parse(R"({"optimizer": {"embedding_lr_scale": -1}})"),
                      Contains("optimizer.embedding_lr_scale: must be in [0.0, 10.0], got -1"));
  REQUIRE_THROWS_WITH(parse(R"({"optimizer": {"beta1": 1}})"), Contains("optimizer.beta1"));
  REQUIRE_THROWS_WITH(parse(R"({"optimizer": {"beta2": -0.5}})"), Contains("optimizer.beta2"));
  REQUIRE_THROWS_WITH(parse(R"({"optimizer": {"eps": 0}})"), Contains("optimizer.eps"));
  CHECK(parse(R"({"optimizer": {"eps": 1}})").optimizer.eps == 1.0);
  REQUIRE_THROWS_WITH(parse(R"({"optimizer": {"weight_decay": 1.01}})"), Contains("optimizer.weight_decay"));
  REQUIRE_THROWS_WITH(parse(R"({"optimizer": {"clip_norm": -1}})"), Contains("optimizer.clip_norm"));
  REQUIRE_THROWS_WITH(parse(R"({"optimizer": {"clip_norm": 1e7}})"), Contains("optimizer.clip_norm"));
}

TEST_CASE("overrides set numbers, strings, enums and booleans", "[config]") {
  json j = json::parse(R"({"trainer": {"epochs": 5}})");
  han::apply_overrides(j, {"trainer.epochs=7", "model.mask=none", "model.dropout=0.5",
                           "tokenizer.lowercase=false", "data.train=some file.jsonl",
                           "data.dev=\"quoted.jsonl\"", "data.test=2024", "model.embeddings=null",
                           "optimizer.name=sgd"});
  const han::Config c = han::config_from_json(j, "x");
  CHECK(c.trainer.epochs == 7);
  CHECK(c.model.mask == han::MaskMode::none);
  CHECK(c.model.dropout == 0.5);
  CHECK_FALSE(c.tokenizer.lowercase);
  // Paths given on the command line are relative to the current folder.
  const auto here = [](const char* p) { return std::filesystem::absolute(p).lexically_normal().string(); };
  CHECK(c.data.train == here("some file.jsonl"));
  CHECK(c.data.dev == here("quoted.jsonl"));
  CHECK(c.data.test == here("2024"));  // text settings keep the text as written
  CHECK(c.model.embeddings.empty());
  CHECK(c.optimizer.name == han::OptimizerName::sgd);

  // A value containing '=' keeps everything after the first '='.
  json k = json::object();
  han::apply_overrides(k, {"data.train=a=b.jsonl"});
  CHECK(k["data"]["train"] == here("a=b.jsonl"));
  // Later overrides win.
  han::apply_overrides(k, {"trainer.epochs=1", "trainer.epochs=2"});
  CHECK(k["trainer"]["epochs"] == 2);
}

TEST_CASE("override errors: unknown path, malformed, wrong type", "[config]") {
  json j = json::object();
  REQUIRE_THROWS_WITH(han::apply_overrides(j, {"model.hiden=3"}),
                      Contains("--set") && Contains("unknown key \"model.hiden\""));
  REQUIRE_THROWS_WITH(han::apply_overrides(j, {"model.word_hiden=3"}),
                      Contains("did you mean \"model.word_hidden\""));
  REQUIRE_THROWS_WITH(han::apply_overrides(j, {"modle.mask=none"}), Contains("unknown key \"modle.mask\""));
  REQUIRE_THROWS_WITH(han::apply_overrides(j, {"epochs=3"}),
                      Contains("unknown key \"epochs\"") && Contains("trainer.epochs"));
  REQUIRE_THROWS_WITH(han::apply_overrides(j, {"model"}), Contains("--set") && Contains("key.path=value"));
  REQUIRE_THROWS_WITH(han::apply_overrides(j, {"=3"}), Contains("--set"));
  REQUIRE_THROWS_WITH(han::apply_overrides(j, {"model.mask.x=none"}), Contains("unknown key"));

  // A bad value is blamed on the override that gave it, not on the config file.
  json w = json::object();
  REQUIRE_THROWS_WITH(han::apply_overrides(w, {"trainer.epochs=abc"}),
                      StartsWith("--set trainer.epochs=abc: trainer.epochs: expected an integer, got \"abc\""));
  REQUIRE_THROWS_WITH(han::apply_overrides(w, {"model.mask=zero"}),
                      StartsWith("--set model.mask=zero: model.mask") && Contains("\"zero\""));
  REQUIRE_THROWS_WITH(han::apply_overrides(w, {"tokenizer.lowercase=yes"}),
                      StartsWith("--set tokenizer.lowercase=yes: tokenizer.lowercase"));
  // A section is not a key: say so, with one of its keys as an example.
  REQUIRE_THROWS_WITH(han::apply_overrides(w, {"model=3"}),
                      Contains("\"model\" is a section") && Contains("--set model.") && !Contains("did you mean"));
  REQUIRE_THROWS_WITH(han::apply_overrides(w, {"trainer.epochs=0"}),
                      Contains("trainer.epochs: must be between 1 and 100000, got 0"));
}

TEST_CASE("load_config_file resolves relative paths against the config's folder", "[config]") {
  TempDir dir;
  const std::string abs_train = (dir.path / "abs" / "train.jsonl").string();
  const std::string cfg = dir.write("configs/run.json", R"({
    "data": {"train": "../data/train.jsonl", "dev": ")" + abs_train + R"(", "test": ""},
    "model": {"embeddings": "vectors/glove.txt"}
  })");
  const han::Config c = han::load_config_file(cfg);
  CHECK(c.data.train == (dir.path / "data" / "train.jsonl").string());
  CHECK(c.data.dev == abs_train);
  CHECK(c.data.test.empty());
  CHECK(c.model.embeddings == (dir.path / "configs" / "vectors" / "glove.txt").string());

  // Paths given with --set are relative to where the user stands, not to the config.
  const han::Config o = han::load_config_file(cfg, {"data.test=test.jsonl", "trainer.epochs=4"});
  CHECK(o.data.test == (std::filesystem::current_path() / "test.jsonl").string());
  CHECK(o.trainer.epochs == 4);

  // Embeddings null stays empty.
  const std::string cfg2 = dir.write("c2.json", R"({"model": {"embeddings": null}})");
  CHECK(han::load_config_file(cfg2).model.embeddings.empty());
}

TEST_CASE("load_config_file reports file problems with the file name", "[config]") {
  TempDir dir;
  const std::string missing = (dir.path / "nope.json").string();
  REQUIRE_THROWS_WITH(han::load_config_file(missing), Contains(missing) && Contains("no such file"));

  const std::string bad = dir.write("bad.json", "{\n  \"model\": {\n    \"mask\": none\n  }\n}\n");
  REQUIRE_THROWS_WITH(han::load_config_file(bad), Contains(bad + ":3:") && Contains("malformed JSON"));
  REQUIRE_THROWS_WITH(han::load_config_file(bad), Contains(bad + ":3:14: malformed JSON"));

  const std::string trailing = dir.write("comma.json", "{\"trainer\": {\"epochs\": 3,}}");
  REQUIRE_THROWS_WITH(han::load_config_file(trailing), Contains(trailing + ":1:") && Contains("malformed JSON"));

  const std::string empty = dir.write("empty.json", "");
  REQUIRE_THROWS_WITH(han::load_config_file(empty), Contains(empty + ":1:") && Contains("malformed JSON"));

  const std::string unknown = dir.write("unknown.json", "{\"model\": {\"hiden\": 3}}");
  REQUIRE_THROWS_WITH(han::load_config_file(unknown), Contains(unknown + ": unknown key \"model.hiden\""));

  const std::string arr = dir.write("arr.json", "[]");
  REQUIRE_THROWS_WITH(han::load_config_file(arr, {"trainer.epochs=3"}), Contains(arr) && Contains("object"));

  const std::string ok = dir.write("ok.json", "{}");
  REQUIRE_THROWS_WITH(han::load_config_file(ok, {"trainer.epoch=3"}),
                      Contains("unknown key \"trainer.epoch\"") && Contains("trainer.epochs"));
  REQUIRE_THROWS_WITH(han::load_config_file(ok, {"trainer.epochs=1.5"}),
                      StartsWith("--set trainer.epochs=1.5: trainer.epochs"));
}

TEST_CASE("the key table has every key of a config once, and each default it shows is the parser's", "[config]") {
  const json full = han::config_to_full_json(han::Config{});
  std::vector<std::string> written;
  for (const auto& sec : full.items())
    for (const auto& key : sec.value().items()) written.push_back(sec.key() + "." + key.key());
  std::sort(written.begin(), written.end());
  std::vector<std::string> listed = han::config_key_paths();
  std::sort(listed.begin(), listed.end());
  CHECK(listed == written);
  CHECK(std::adjacent_find(listed.begin(), listed.end()) == listed.end());
  for (const han::ConfigKey& k : han::config_keys()) {
    INFO(k.path());
    CHECK(json::parse(k.default_value) == full[k.section][k.name]);
    // Set to the default it shows, the key gives the default config.
    json j = json::object();
    han::apply_overrides(j, {k.path() + "=" + k.default_value});
    CHECK(han::config_to_full_json(han::config_from_json(j, "t")) == full);
    CHECK_FALSE(k.meaning.empty());
    CHECK_FALSE(k.allowed.empty());
  }
  const auto row = [](const std::string& path) {
    for (const han::ConfigKey& k : han::config_keys())
      if (k.path() == path) return k;
    FAIL("no row " << path);
    return han::ConfigKey{};
  };
  CHECK(row("model.mask").allowed == "none|renorm|additive");
  CHECK(row("model.mask").default_value == "\"renorm\"");
  CHECK(row("trainer.epochs").allowed == "1..100000");
  CHECK(row("tokenizer.min_count").default_value == "\"auto\"");
  CHECK(row("optimizer.lr").allowed == "(0.0, 10.0]");
  CHECK(row("model.embeddings").default_value == "null");
  CHECK(row("model.freeze_embeddings").default_value == "false");
}

TEST_CASE("a stored config holds han 0.1.0's keys always, a later key only when it is not what its absence means",
          "[config]") {
  const json stored = han::config_to_json(han::Config{});
  for (const han::ConfigKey& k : han::config_keys()) {
    INFO(k.path());
    if (k.section == "embed" || k.section == "loss") continue;  // whole sections, below
    const std::string absence = k.absent_means.empty() ? k.default_value : k.absent_means;
    CHECK(stored[k.section].contains(k.name) == (k.always_written || json::parse(absence) != json::parse(k.default_value)));
  }
  CHECK_FALSE(stored.contains("embed"));
  CHECK_FALSE(stored.contains("loss"));
  // Pinned, so that a wrong row shows: keys of 0.1.0 and keys added later.
  for (const char* key : {"embedding_dim", "mask", "dropout", "embeddings", "freeze_embeddings"})
    CHECK(stored["model"].contains(key));
  CHECK(stored["tokenizer"]["version"] == 3);
  CHECK(stored["model"]["linear_member"] == true);
  CHECK_FALSE(stored["data"].contains("encoding"));
  for (const char* key : {"sentence_dropout", "word_dropout", "task", "bag", "linear_weight"})
    CHECK_FALSE(stored["model"].contains(key));
  CHECK_FALSE(stored["trainer"].contains("calibrate"));
  CHECK_FALSE(stored["data"].contains("cache"));
  // A config with keys away from their defaults is written with them and read back the same.
  han::Config changed;
  changed.data.unlabeled = "u.txt";
  changed.embed.window = 3;
  changed.model.sentence_dropout = 0.1;
  changed.model.task = han::Task::regression;
  changed.loss.regression = han::RegressionLoss::huber;
  changed.model.linear_member = false;
  changed.model.linear_weight = 0.5;
  changed.trainer.calibrate = false;
  const json j = han::config_to_json(changed);
  CHECK(j["embed"]["window"] == 3);
  CHECK(j["loss"]["regression"] == "huber");
  CHECK_FALSE(j["model"].contains("linear_member"));  // off: as han 0.1.0 wrote it
  CHECK(han::config_to_full_json(han::stored_config_from_json(j, "m")) == han::config_to_full_json(changed));
}

TEST_CASE("tokenizer.version: 3 by default, 1 for configs stored before it existed", "[config]") {
  CHECK(han::Config{}.tokenizer.version == 3);
  CHECK(parse(R"({"tokenizer": {"version": 1}})").tokenizer.version == 1);
  CHECK(parse(R"({"tokenizer": {"version": 2}})").tokenizer.version == 2);
  REQUIRE_THROWS_WITH(parse(R"({"tokenizer": {"version": 4}})"), Contains("tokenizer.version: must be between 1 and 3, got 4"));
  // A config han wrote (model file, run folder) without the key was tokenized by the old rules.
  json stored = han::config_to_json(han::Config{});
  CHECK(han::stored_config_from_json(stored, "m").tokenizer.version == 3);
  stored["tokenizer"]["version"] = 2;  // a model trained before version 3 keeps its rules
  CHECK(han::stored_config_from_json(stored, "m").tokenizer.version == 2);
  stored["tokenizer"].erase("version");
  CHECK(han::config_from_json(stored, "m").tokenizer.version == 3);
  CHECK(han::stored_config_from_json(stored, "m").tokenizer.version == 1);
  CHECK(han::stored_config_from_json(json::object(), "m").tokenizer.version == 1);
}

TEST_CASE("model.linear_member: on by default, off for configs stored without it", "[config]") {
  CHECK(han::Config{}.model.linear_member);
  CHECK(parse("{}").model.linear_member);  // a user's config without the key: today's default
  CHECK_FALSE(parse(R"({"model": {"linear_member": false}})").model.linear_member);
  // A config han wrote: the key is there when on, and left out when off, as before it was the default.
  json stored = han::config_to_json(han::Config{});
  CHECK(han::stored_config_from_json(stored, "m").model.linear_member);
  han::Config off;
  off.model.linear_member = false;
  stored = han::config_to_json(off);
  CHECK_FALSE(stored["model"].contains("linear_member"));
  CHECK_FALSE(han::stored_config_from_json(stored, "m").model.linear_member);
  CHECK_FALSE(han::stored_config_from_json(json::object(), "m").model.linear_member);
  CHECK(han::config_from_json(stored, "m").model.linear_member);  // read as a user's file: the default
}

TEST_CASE("model.task, its data keys, loss settings and trainer.select by task", "[config]") {
  const han::Config c = parse(R"({"model": {"task": "multilabel"}, "data": {"label_separator": "|"},
                                  "trainer": {"select": "hamming_loss"}})");
  CHECK(c.model.task == han::Task::multilabel);
  CHECK(c.data.label_separator == "|");
  CHECK(c.trainer.select == han::SelectMetric::hamming_loss);
  CHECK(han::Config{}.trainer.select == han::SelectMetric::auto_);
  REQUIRE_THROWS_WITH(parse(R"({"model": {"task": "ranking"}})"), Contains("model.task: must be one of"));
  REQUIRE_THROWS_WITH(parse(R"({"trainer": {"select": "rmse"}})"),
                      Contains("trainer.select: rmse is not a score of model.task single") &&
                          Contains("auto, accuracy, macro_f1 or loss"));
  REQUIRE_THROWS_WITH(parse(R"({"model": {"task": "regression"}, "trainer": {"select": "accuracy"}})"),
                      Contains("trainer.select: accuracy is not a score of model.task regression"));
  REQUIRE_THROWS_WITH(parse(R"({"data": {"target_key": ""}})"), Contains("data.target_key: expected a non-empty string"));
  REQUIRE_THROWS_WITH(parse(R"({"data": {"label_separator": "\t"}})"), Contains("data.label_separator: must be valid UTF-8"));

  const han::Config w = parse(R"({"loss": {"class_weights": {"spam": 3, "ham": 0.5}}})");
  REQUIRE(w.loss.class_weights.mode == han::ClassWeights::Mode::given);
  CHECK(w.loss.class_weights.given.size() == 2);
  CHECK(han::config_to_json(w)["loss"]["class_weights"] == json{{"spam", 3}, {"ham", 0.5}});
  CHECK(han::config_from_json(han::config_to_json(w), "x").loss.class_weights == w.loss.class_weights);
  CHECK(parse(R"({"loss": {"class_weights": "balanced"}})").loss.class_weights.mode == han::ClassWeights::Mode::balanced);
  REQUIRE_THROWS_WITH(parse(R"({"loss": {"class_weights": {"spam": 0}}})"),
                      Contains("loss.class_weights.spam: expected a positive number"));
  REQUIRE_THROWS_WITH(parse(R"({"loss": {"class_weights": "inverse"}})"), Contains("loss.class_weights: expected"));
  REQUIRE_THROWS_WITH(parse(R"({"model": {"task": "multilabel"}, "loss": {"class_weights": "balanced"}})"),
                      Contains("loss.class_weights: applies to model.task single only"));
  json j = json::object();
  han::apply_overrides(j, {"loss.class_weights=balanced", "model.task=regression", "data.target_key=rating"});
  CHECK(j["loss"]["class_weights"] == "balanced");
  CHECK(j["data"]["target_key"] == "rating");
}

TEST_CASE("model.freeze_embeddings: false, true or auto (fixed when pretraining read unlabelled text)", "[config]") {
  CHECK(han::Config{}.model.freeze_embeddings == han::Switch::off);
  CHECK(parse(R"({"model": {"freeze_embeddings": true}})").model.freeze_embeddings == han::Switch::on);
  CHECK(parse(R"({"model": {"freeze_embeddings": "auto"}})").model.freeze_embeddings == han::Switch::auto_);
  REQUIRE_THROWS_WITH(parse(R"({"model": {"freeze_embeddings": "sometimes"}})"), Contains("model.freeze_embeddings"));
  REQUIRE_THROWS_WITH(parse(R"({"model": {"freeze_embeddings": 1}})"), Contains("model.freeze_embeddings"));
  // Written as JSON booleans when set, so configs written before "auto" read the same.
  han::Config c;
  CHECK(han::config_to_json(c)["model"]["freeze_embeddings"] == false);
  c.model.freeze_embeddings = han::Switch::on;
  CHECK(han::config_to_json(c)["model"]["freeze_embeddings"] == true);
  c.model.freeze_embeddings = han::Switch::auto_;
  CHECK(han::config_to_json(c)["model"]["freeze_embeddings"] == "auto");
  CHECK(han::config_from_json(han::config_to_json(c), "m").model.freeze_embeddings == han::Switch::auto_);
  // --set takes the words.
  json j = json::object();
  han::apply_overrides(j, {"model.freeze_embeddings=auto"});
  CHECK(parse(j.dump()).model.freeze_embeddings == han::Switch::auto_);
  j = json::object();
  han::apply_overrides(j, {"model.freeze_embeddings=true"});
  CHECK(parse(j.dump()).model.freeze_embeddings == han::Switch::on);

  // What auto decides.
  CHECK_FALSE(han::frozen_embeddings(c));  // random start
  c.model.embeddings = "pretrain";
  CHECK_FALSE(han::frozen_embeddings(c));  // vectors from the training text only
  c.data.unlabeled = "unsup.txt";
  CHECK(han::frozen_embeddings(c));
  c.model.embeddings = "vectors.txt";  // a file: where its text came from is unknown, trained
  CHECK_FALSE(han::frozen_embeddings(c));
  c.model.freeze_embeddings = han::Switch::on;
  CHECK(han::frozen_embeddings(c));
  c.model.freeze_embeddings = han::Switch::off;
  c.optimizer.embedding_lr_scale = 0;
  CHECK(han::frozen_embeddings(c));
}

TEST_CASE("model.linear_weight: auto or a share in [0, 1]", "[config]") {
  CHECK(han::Config{}.model.linear_weight == han::kAutoReal);
  CHECK(parse(R"({"model": {"linear_weight": 0.3}})").model.linear_weight == 0.3);
  CHECK(parse(R"({"model": {"linear_weight": 1}})").model.linear_weight == 1.0);
  CHECK(parse(R"({"model": {"linear_weight": "auto"}})").model.linear_weight == han::kAutoReal);
  REQUIRE_THROWS_WITH(parse(R"({"model": {"linear_weight": 1.5}})"),
                      Contains("model.linear_weight: must be \"auto\" or in [0.0, 1.0], got 1.5"));
  REQUIRE_THROWS_WITH(parse(R"({"model": {"linear_weight": -1}})"), Contains("model.linear_weight: must be \"auto\" or in"));
  REQUIRE_THROWS_WITH(parse(R"({"model": {"linear_weight": "half"}})"),
                      Contains("model.linear_weight: expected a number or \"auto\""));
  // Written as "auto" while it is, and left out of a config that keeps the default.
  han::Config c;
  CHECK_FALSE(han::config_to_json(c)["model"].contains("linear_weight"));
  c.model.linear_weight = 0.7;
  CHECK(han::config_to_json(c)["model"]["linear_weight"] == 0.7);
  json j = json::object();
  han::apply_overrides(j, {"model.linear_weight=auto"});
  CHECK(parse(j.dump()).model.linear_weight == han::kAutoReal);
  j = json::object();
  han::apply_overrides(j, {"model.linear_weight=0.25"});
  CHECK(parse(j.dump()).model.linear_weight == 0.25);
}
