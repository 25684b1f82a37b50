// The token cache: a corpus written and mapped back is the same corpus; any change to the
// data or the tokenizer settings makes it stale; damage is detected; a file that is not a
// cache is never overwritten.
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <xxhash.h>

#include "han/core/error.h"
#include "han/text/reading.h"
#include "han/text/token_cache.h"
#include "support/bundled.h"
#include "support/paths.h"
#include "support/run.h"

using namespace han;
using namespace han::test;

namespace {

void check_same_documents(const Documents& a, const Documents& b) {
  REQUIRE(a.size() == b.size());
  CHECK(a.total_tokens() == b.total_tokens());
  CHECK(a.word_arrays().narrow == b.word_arrays().narrow);
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].label == b[i].label);
    CHECK(a[i].weight == b[i].weight);
    CHECK(a[i].target == b[i].target);
    CHECK(a[i].sentences.ids() == b[i].sentences.ids());
    REQUIRE(a[i].unknown.size() == b[i].unknown.size());
    for (std::size_t k = 0; k < a[i].unknown.size(); ++k) CHECK(a[i].unknown[k] == b[i].unknown[k]);
  }
}

Config small_corpus_config(const TempDir& dir) {
  Config cfg = bundled_config(8, 1);
  cfg.data.train = dir.write("train.jsonl", slurp(source_path("data/dev.jsonl")));
  cfg.data.dev = dir.write("dev.jsonl", first_lines(slurp(source_path("data/test.jsonl")), 100));
  cfg.data.cache = dir.file("tokens.cache");
  return cfg;
}

}  // namespace

TEST_CASE("token cache: the mapped corpus is the corpus read from the text", "[token_cache]") {
  TempDir dir;
  Config cfg = small_corpus_config(dir);
  cfg.tokenizer.max_sentences = cfg.tokenizer.max_words = kAutoCap;
  cfg.tokenizer.min_count = kAutoMinCount;
  const Corpus written = load_corpus(cfg);  // writes the cache
  REQUIRE(written.min_count >= 1);
  // The linear member's character n-grams read the words the vocabulary lacks: kept, and cached.
  REQUIRE(written.train.unknown_words() != nullptr);
  REQUIRE(written.dev.unknown_words() != nullptr);
  REQUIRE(!written.train.unknown_words()->ids().empty());
  REQUIRE(std::filesystem::exists(cfg.data.cache));
  const std::optional<Corpus> mapped = read_token_cache(cfg.data.cache, corpus_fingerprint(cfg, {}, nullptr), keeps_unknown_words(cfg.model));
  REQUIRE(mapped);
  CHECK(mapped->vocab.words() == written.vocab.words());
  CHECK(mapped->labels == written.labels);
  CHECK(mapped->max_sentences == written.max_sentences);
  CHECK(mapped->max_words == written.max_words);
  CHECK(mapped->min_count == written.min_count);
  CHECK(mapped->train_distinct_words == written.train_distinct_words);
  check_same_documents(mapped->train, written.train);
  check_same_documents(mapped->dev, written.dev);
  CHECK(mapped->test.empty());
  const Corpus again = load_corpus(cfg);  // from the cache, weights applied again
  check_same_documents(again.train, written.train);
}

TEST_CASE("token cache: other data or settings make it stale, never reused", "[token_cache]") {
  TempDir dir;
  Config cfg = small_corpus_config(dir);
  load_corpus(cfg);
  const auto fingerprint = [&](const Config& c) { return corpus_fingerprint(c, {}, nullptr); };
  const std::uint64_t original = fingerprint(cfg);
  REQUIRE(read_token_cache(cfg.data.cache, original, keeps_unknown_words(cfg.model)));
  Config other = cfg;
  other.tokenizer.min_count = 4;
  CHECK(fingerprint(other) != original);
  other = cfg;
  other.tokenizer.lowercase = false;
  CHECK(fingerprint(other) != original);
  other = cfg;
  other.data.dev = "";
  CHECK(fingerprint(other) != original);
  CHECK(corpus_fingerprint(cfg, {"extra"}, nullptr) != original);
  CHECK_FALSE(read_token_cache(cfg.data.cache, fingerprint(other), keeps_unknown_words(cfg.model)));
  // One byte of the training text changed.
  std::string train = slurp(cfg.data.train);
  train[train.find("the")] = 'T';
  dir.write("train.jsonl", train);
  CHECK(fingerprint(cfg) != original);
  // The same bytes at another path are the same data.
  other = cfg;
  other.data.dev = dir.write("moved.jsonl", slurp(cfg.data.dev));
  CHECK(fingerprint(other) == fingerprint(cfg));
}

TEST_CASE("token cache: a damaged cache is rebuilt, a foreign file refused, a stream refused", "[token_cache]") {
  TempDir dir;
  Config cfg = small_corpus_config(dir);
  const Corpus written = load_corpus(cfg);
  const std::uint64_t fp = corpus_fingerprint(cfg, {}, nullptr);
  std::string bytes = slurp(cfg.data.cache);
  bytes[bytes.size() / 2] ^= 0x10;
  dir.write("tokens.cache", bytes);
  CHECK_FALSE(read_token_cache(cfg.data.cache, fp, keeps_unknown_words(cfg.model)));
  dir.write("tokens.cache", bytes.substr(0, 30));
  CHECK_FALSE(read_token_cache(cfg.data.cache, fp, keeps_unknown_words(cfg.model)));
  check_same_documents(load_corpus(cfg).train, written.train);  // rebuilt
  REQUIRE(read_token_cache(cfg.data.cache, fp, keeps_unknown_words(cfg.model)));

  Config foreign = cfg;
  foreign.data.cache = cfg.data.dev;  // a data file named by mistake
  const std::string dev_before = slurp(cfg.data.dev);
  CHECK_THROWS_WITH(load_corpus(foreign), Catch::Contains("is not a han token cache; refusing to overwrite it"));
  CHECK(slurp(cfg.data.dev) == dev_before);

  Config stream = cfg;
  stream.data.dev = "-";
  CHECK_THROWS_WITH(corpus_fingerprint(stream, {}, nullptr), Catch::StartsWith("data.dev: \"-\" is a stream"));
}

namespace {

// The cache with `from` replaced by `to` in its JSON header (padded to 8 bytes as the
// writer does; array offsets count from the data section, so they stay right) and the
// checksum resealed: a crafted file that passes the checksum.
std::string crafted(const std::string& bytes, const std::string& from, const std::string& to) {
  constexpr std::size_t preamble = kTokenCacheHeaderStart;
  std::uint64_t header_bytes = 0;
  std::memcpy(&header_bytes, bytes.data() + preamble - 8, 8);
  const std::string data = bytes.substr(preamble + header_bytes, bytes.size() - 8 - preamble - header_bytes);
  std::string header = bytes.substr(preamble, header_bytes);
  const std::size_t at = header.find(from);
  REQUIRE(at != std::string::npos);
  header.replace(at, from.size(), to);
  header.append((8 - header.size() % 8) % 8, ' ');
  const std::uint64_t new_bytes = header.size();
  std::string out = bytes.substr(0, preamble - 8);
  out.append(reinterpret_cast<const char*>(&new_bytes), 8);
  out += header + data;
  const std::uint64_t h = XXH3_64bits(out.data(), out.size());
  out.append(reinterpret_cast<const char*>(&h), 8);
  return out;
}

}  // namespace

TEST_CASE("token cache: a crafted cache that passes the checksum is refused, not trusted", "[token_cache]") {
  TempDir dir;
  Config cfg = small_corpus_config(dir);
  load_corpus(cfg);
  const std::uint64_t fp = corpus_fingerprint(cfg, {}, nullptr);
  const std::string bytes = slurp(cfg.data.cache);
  const std::size_t at = bytes.find("\"documents\":");
  REQUIRE(at != std::string::npos);
  const std::string docs = bytes.substr(at, bytes.find_first_of(",}", at) - at);  // "documents":N
  // Resealing alone keeps it usable: the cases below fail for what they change.
  dir.write("tokens.cache", crafted(bytes, docs, docs));
  REQUIRE(read_token_cache(cfg.data.cache, fp, keeps_unknown_words(cfg.model)));
  // 2^61 documents: 8 * (2^61 + 1) bytes wraps around to 8, which bytes == count * 8
  // alone accepts, and the reader would then walk off the mapping.
  for (const char* count : {"2305843009213693952", "-1", "18446744073709551615", "1e300"}) {
    dir.write("tokens.cache", crafted(bytes, docs, std::string("\"documents\":") + count));
    CHECK_FALSE(read_token_cache(cfg.data.cache, fp, keeps_unknown_words(cfg.model)));
  }
  const std::size_t cap = bytes.find("\"max_words\":");
  REQUIRE(cap != std::string::npos);
  const std::string max_words = bytes.substr(cap, bytes.find_first_of(",}", cap) - cap);
  for (const char* words : {"0", "-5", "2.5", "4294967297"}) {
    dir.write("tokens.cache", crafted(bytes, max_words, std::string("\"max_words\":") + words));
    CHECK_FALSE(read_token_cache(cfg.data.cache, fp, keeps_unknown_words(cfg.model)));
  }
}
