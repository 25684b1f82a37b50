// han predict and han eval use a format 3 model where it lies, in the mapped file
// (infer/model_file.h): the same answers as the model copied into memory, a damaged
// part refused when it is read, and a file cut short beneath them reported in one line.
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>

#include "han/infer/model_file.h"
#include "support/cli_fixture.h"
#include "support/paths.h"
#include "support/run.h"

using namespace han::test;

namespace {

std::uint64_t le(const std::string& b, std::size_t at, int n) {
  std::uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= std::uint64_t(static_cast<unsigned char>(b[at + i])) << (8 * i);
  return v;
}

// Where tensor `name`'s data starts in format 3 `bytes`, read from its directory by hand.
std::size_t data_offset(const std::string& bytes, const std::string& name) {
  REQUIRE(le(bytes, 8, 4) == 3);
  std::size_t at = 20 + le(bytes, 12, 8);
  const auto count = le(bytes, at, 4);
  at += 4;
  for (std::uint64_t t = 0; t < count; ++t) {
    const auto len = le(bytes, at, 4);
    const std::string tensor = bytes.substr(at + 4, len);
    at += 4 + len + 8;
    if (tensor == name) return le(bytes, at, 8);
    at += 8;
  }
  FAIL("no tensor " << name);
  return 0;
}

}  // namespace

TEST_CASE("predict and eval answer from a model in place as from the same model copied, and refuse a damaged table when they read it",
          "[cli]") {
  const CliFixture& f = cli_fixture();
  TempDir dir;
  const std::string bytes = slurp(f.model);
  const std::string texts = first_lines(slurp(source_path("data/test.jsonl")), 40);
  const std::string data = dir.write("texts.jsonl", texts);
  // The same model in format 2, which han reads whole into memory.
  const han::ModelFileContents m = han::parse_model(bytes, f.model);
  const std::string copied = dir.write("copied.han", han::serialize_model(m.header, m.tensors, 2));
  const std::string in_place = dir.write("in_place.han", bytes);
  const RunResult a = run(han_cmd("predict --model " + in_place + " --top-k 3 --explain --format json --data-format jsonl"), texts);
  const RunResult b = run(han_cmd("predict --model " + copied + " --top-k 3 --explain --format json --data-format jsonl"), texts);
  INFO(a.err << b.err);
  REQUIRE(a.exit_code == 0);
  REQUIRE(b.exit_code == 0);
  CHECK(lines_of(a.out).size() == 40);
  CHECK(a.out == b.out);
  const RunResult ea = run(han_cmd("eval --model " + in_place + " --data " + data + " --json"));
  const RunResult eb = run(han_cmd("eval --model " + copied + " --data " + data + " --json"));
  REQUIRE(ea.exit_code == 0);
  const auto scores = [](const std::string& out) {
    nlohmann::json j = nlohmann::json::parse(out);
    for (const char* timing : {"seconds", "docs_per_second", "tokens_per_second"}) j.erase(timing);
    return j;
  };
  CHECK(scores(ea.out) == scores(eb.out));

  // One flipped bit inside the embedding table: the file opens (its directory holds), and
  // the first read of that chunk refuses it, naming the file.
  std::string damaged = bytes;
  damaged[data_offset(bytes, "embedding.table") + 100] ^= 0x04;
  const std::string bad = dir.write("damaged.han", damaged);
  for (const std::string& cmd : {"predict --data-format jsonl --model " + bad, "eval --model " + bad + " --data " + data, "info --model " + bad}) {
    const RunResult r = run(han_cmd(cmd), texts);
    INFO(cmd << "\n" << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find("han: error") == r.err.rfind("han: error"));  // one error line
    CHECK(has(r.err, "han: error: " + bad + ": model file is corrupted (checksum mismatch"));
  }
}

TEST_CASE("a model cut short in place while predict reads it ends predict with one line naming it, not a crash",
          "[cli]") {
  const CliFixture& f = cli_fixture();
  TempDir dir;
  const std::string model = dir.write("model.han", slurp(f.model));
  const std::string fifo = dir.file("texts.fifo"), out = dir.file("answers.tsv");
  // predict answers a first text (so it has mapped the model), the file is cut in place
  // (not replaced), then a second text makes it read the part that is gone.
  const RunResult r = run("mkfifo " + fifo + "; (" + han_cmd("predict --model " + model) + " < " + fifo + " > " + out +
                          "; echo \"exit $?\" >&2) & exec 3> " + fifo + "; echo \"good\" >&3; " +
                          "for i in $(seq 200); do [ -s " + out + " ] && break; sleep 0.05; done; truncate -s 4096 " +
                          model + "; echo \"a film about a car, its story and its actors\" >&3; exec 3>&-; wait");
  INFO(r.err);
  CHECK(lines_of(slurp(out)).size() == 1);  // the first text's answer
  CHECK(has(r.err, "han: error: " + model + ": the file was cut short while han read it"));
  CHECK(has(r.err, "exit 1"));
  CHECK(lines_of(r.err).size() == 2);
}
