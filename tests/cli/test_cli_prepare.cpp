// han prepare and data.cache as a user meets them: prepare once, then train from the
// cache to the same model bit for bit; a second prepare finds the cache up to date, a
// changed data file does not; mistakes get one line.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "support/paths.h"
#include "support/run.h"

using namespace han::test;
using json = nlohmann::json;

namespace {

std::string write_config(const TempDir& dir) {
  dir.write("train.jsonl", slurp(source_path("data/dev.jsonl")));
  dir.write("dev.jsonl", first_lines(slurp(source_path("data/test.jsonl")), 100));
  return dir.write("c.json", R"({"data": {"train": "train.jsonl", "dev": "dev.jsonl"},
    "tokenizer": {"min_count": 2, "max_sentences": "auto", "max_words": "auto"},
    "model": {"embedding_dim": 8, "word_hidden": 4, "sentence_hidden": 4, "attention_dim": 8},
    "trainer": {"epochs": 1, "threads": 2}})");
}

}  // namespace

TEST_CASE("han prepare writes a token cache that han train maps, to the same model", "[cli][token_cache]") {
  TempDir dir;
  const std::string cfg = write_config(dir), cache = dir.file("tokens.cache");
  const RunResult prep = run(han_cmd("prepare --config " + cfg + " --cache " + cache));
  REQUIRE(prep.exit_code == 0);
  const json summary = json::parse(prep.out);
  CHECK(summary["up_to_date"] == false);
  CHECK(summary["train"] == 500);
  CHECK(summary["tokens"].get<long>() > 10000);
  CHECK(summary["bytes"].get<long>() < 4 * summary["tokens"].get<long>());  // 16-bit ids
  const RunResult again = run(han_cmd("prepare --config " + cfg + " --set data.cache=" + cache));
  REQUIRE(again.exit_code == 0);
  CHECK(json::parse(again.out)["up_to_date"] == true);

  const RunResult plain = run(han_cmd("train --config " + cfg + " --output " + dir.file("plain")));
  const RunResult cached =
      run(han_cmd("train --config " + cfg + " --set data.cache=" + cache + " --output " + dir.file("cached")));
  REQUIRE(plain.exit_code == 0);
  REQUIRE(cached.exit_code == 0);
  CHECK(cached.err.find("token cache " + cache + ": ") != std::string::npos);
  CHECK(cached.err.find(" documents mapped in ") != std::string::npos);
  // The models differ only in their config's data.cache: their answers are the same.
  const auto predict = [&](const std::string& run_folder) {
    return run(han_cmd("predict --model " + dir.file(run_folder + "/model.han") + " --format json --top-k 2 --data-format jsonl " + dir.file("dev.jsonl")));
  };
  const RunResult from_plain = predict("plain"), from_cached = predict("cached");
  REQUIRE(from_plain.exit_code == 0);
  CHECK(from_plain.out == from_cached.out);
  CHECK(slurp(dir.file("plain/metrics.jsonl")).substr(0, 60) == slurp(dir.file("cached/metrics.jsonl")).substr(0, 60));
  // han ablate, which leaves the linear member out, reads the data as han train does: it
  // maps the same cache.
  const RunResult ablated = run(han_cmd("ablate --config " + cfg + " --set data.cache=" + cache +
                                        " --seeds 1 --masks renorm --batching bucket --output " + dir.file("ablate")));
  INFO(ablated.err);
  REQUIRE(ablated.exit_code == 0);
  CHECK(ablated.err.find("token cache " + cache + ": ") != std::string::npos);
  CHECK(ablated.err.find("token cache not written") == std::string::npos);

  dir.write("train.jsonl", slurp(dir.file("train.jsonl")) + R"({"label": "pos", "text": "one more."})" + "\n");
  const RunResult changed = run(han_cmd("prepare --config " + cfg + " --cache " + cache));
  REQUIRE(changed.exit_code == 0);
  CHECK(json::parse(changed.out)["up_to_date"] == false);
  CHECK(json::parse(changed.out)["train"] == 501);
  CHECK(changed.err.find("made from other data or settings; rebuilding it") != std::string::npos);
}

TEST_CASE("han prepare: mistakes get one line and exit 2", "[cli][token_cache]") {
  TempDir dir;
  const std::string cfg = write_config(dir);
  const RunResult no_cache = run(han_cmd("prepare --config " + cfg));
  CHECK(no_cache.exit_code == 2);
  CHECK(no_cache.err == "han: error: prepare needs a cache file: set data.cache in the config, or give --cache FILE\n");
  const RunResult foreign = run(han_cmd("prepare --config " + cfg + " --cache " + dir.file("dev.jsonl")));
  CHECK(foreign.exit_code == 2);
  CHECK(foreign.err.find("is not a han token cache; refusing to overwrite it") != std::string::npos);
  const RunResult stream = run(han_cmd("prepare --config " + cfg + " --cache " + dir.file("t.cache") + " --set data.train=-"),
                               "{\"label\": \"a\", \"text\": \"x\"}\n");
  CHECK(stream.exit_code == 2);
  CHECK(stream.err.find("data.train: \"-\" is a stream, and data.cache needs files") != std::string::npos);
  const RunResult pretrain =
      run(han_cmd("prepare --config " + cfg + " --cache " + dir.file("t.cache") + " --set model.embeddings=pretrain"));
  CHECK(pretrain.exit_code == 2);
  CHECK(pretrain.err.find("han train writes data.cache itself") != std::string::npos);
}
