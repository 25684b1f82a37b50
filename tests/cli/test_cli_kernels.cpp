// HAN_CPU and HAN_GEMM as a user meets them: a portable build (HAN_NATIVE=OFF) runs the
// kernel variant it is told to (if the CPU can), says so in --version, and every variant
// predicts what the others do to 1e-5; a native build has one variant and refuses any other
// by name. Each GEMM (libxsmm, Eigen) trains and predicts the same model.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/cli_fixture.h"
#include "support/paths.h"
#include "support/run.h"

using namespace han::test;

namespace {

// The probabilities of `han predict` on `input`, every label's.
std::vector<double> probabilities(const std::string& env, const std::string& model, const std::string& input) {
  const RunResult r = run(env + han_cmd("predict --model " + model + " --data-format jsonl --format json --top-k 100"), input);
  INFO(env << "\n" << r.err);
  REQUIRE(r.exit_code == 0);
  std::vector<double> out;
  for (const std::string& line : lines_of(r.out)) {
    const nlohmann::json row = nlohmann::json::parse(line);
    for (const auto& entry : row.at("top_k")) out.push_back(entry.at("probability").get<double>());
  }
  return out;
}

double largest_difference(const std::vector<double>& a, const std::vector<double>& b) {
  REQUIRE(a.size() == b.size());
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
  return worst;
}

std::string first_test_documents(std::size_t n) {
  const auto lines = lines_of(slurp(source_path("data/test.jsonl")));
  std::string input;
  for (std::size_t i = 0; i < n && i < lines.size(); ++i) input += lines[i] + "\n";
  return input;
}

// A small model trained on the fixture's documents for one epoch, with `env` set. Its word
// hidden size, 10, is not a whole SIMD packet: prediction pads it and reads past it.
std::string train_small(const std::string& env, const TempDir& dir, const std::string& name) {
  const std::string out = (dir.path / name).string();
  const RunResult r = run(env + han_cmd("train --config " + source_path("configs/quickstart.json") + " --output " + out +
                                        " --set data.train=" + cli_fixture().data +
                                        " --set trainer.epochs=1 --set model.embedding_dim=32 --set model.word_hidden=10"
                                        " --set model.sentence_hidden=16 --set model.attention_dim=32"
                                        " --set model.linear_member=false --quiet"));
  INFO(env << "\n" << r.err);
  REQUIRE(r.exit_code == 0);
  return out + "/model.han";
}

}  // namespace

TEST_CASE("HAN_GEMM names an unknown GEMM in one line, and --version names the GEMM in use", "[cli][kernels]") {
  const RunResult bogus = run("HAN_GEMM=blas " + han_cmd("--version"));
  CHECK(bogus.exit_code == 2);
  CHECK(bogus.err == "han: error: HAN_GEMM=blas: not a GEMM of han (it has: libxsmm, eigen)\n");
  CHECK(has(run("HAN_GEMM=eigen " + han_cmd("--version")).out, ", GEMM eigen, "));
  const RunResult xsmm = run("HAN_GEMM=libxsmm " + han_cmd("--version"));
  if (xsmm.exit_code == 0) {
    CHECK(has(xsmm.out, ", GEMM libxsmm, "));
    CHECK(has(run(han_cmd("--version")).out, ", GEMM libxsmm, "));  // the default where it runs
  } else {
    CHECK(xsmm.exit_code == 2);
    CHECK(has(xsmm.err, "han: error: HAN_GEMM=libxsmm: "));
  }
}

TEST_CASE("each GEMM trains the same model to 1e-4, and predicts small batches with Eigen either way", "[cli][kernels]") {
  const TempDir dir;
  const std::string input = first_test_documents(200);
  const std::string by_default = train_small("", dir, "default");
  const std::string by_eigen = train_small("HAN_GEMM=eigen ", dir, "eigen");
  const std::vector<double> p = probabilities("", by_default, input);
  // The model each trained, predicted by the same GEMM: training agrees.
  CHECK(largest_difference(p, probabilities("", by_eigen, input)) <= 1e-4);
  // Batches of 64 documents run on libxsmm (at least kFastGemmTokens tokens each), within
  // float rounding of Eigen's; one document at a time runs on Eigen whatever HAN_GEMM says.
  CHECK(largest_difference(p, probabilities("HAN_GEMM=eigen ", by_default, input)) <= 1e-5);
  const std::string one_by_one = " --batch-size 1";
  CHECK(probabilities("", by_default + one_by_one, input) == probabilities("HAN_GEMM=eigen ", by_default + one_by_one, input));
}

TEST_CASE("HAN_CPU names an unknown variant in one line", "[cli][kernels]") {
  const RunResult bogus = run("HAN_CPU=sse9 " + han_cmd("--version"));
  CHECK(bogus.exit_code == 2);
  CHECK(lines_of(bogus.err).size() == 1);
  CHECK(has(bogus.err, "han: error: HAN_CPU=sse9: not a kernel variant of this build (it has: "));
}

// Each build checks what it has: CMakeLists.txt sets HAN_TEST_NATIVE_BUILD for this file.
#if HAN_TEST_NATIVE_BUILD
TEST_CASE("a native build has one kernel variant and refuses HAN_CPU naming another", "[cli][kernels]") {
  const CliFixture& f = cli_fixture();
  CHECK(has(run(han_cmd("--version")).out, "native build"));
  const RunResult r = run("HAN_CPU=generic " + han_cmd("predict --model " + f.model), "a review\n");
  CHECK(r.exit_code == 2);
  CHECK(r.err == "han: error: HAN_CPU=generic: not a kernel variant of this build (it has: native)\n");
}
#else
TEST_CASE("HAN_CPU picks a portable build's kernels and every variant predicts alike to 1e-5", "[cli][kernels]") {
  const CliFixture& f = cli_fixture();
  const std::string input = first_test_documents(200);
  const std::string version = run(han_cmd("--version")).out;
  REQUIRE(has(version, "portable build"));
  const std::vector<double> chosen = probabilities("", f.model, input);
  int ran = 0;
  for (const std::string variant : {"generic", "avx2", "avx512"}) {
    INFO(variant);
    const std::string env = "HAN_CPU=" + variant + " ";
    const RunResult v = run(env + han_cmd("--version"));
    if (v.exit_code == 2 && has(v.err, "this CPU cannot run the " + variant + " kernels")) continue;
    REQUIRE(v.exit_code == 0);
    CHECK((has(v.out, "kernels " + variant + " (picked from") || has(version, "kernels generic, ")));
    CHECK(largest_difference(probabilities(env, f.model, input), chosen) <= 1e-5);
    ++ran;
  }
  CHECK(ran >= 1);  // generic runs everywhere
}

TEST_CASE("a portable build refuses libxsmm with the generic kernels and trains on its AVX2 code as on Eigen", "[cli][kernels]") {
  const RunResult generic = run("HAN_CPU=generic HAN_GEMM=libxsmm " + han_cmd("--version"));
  CHECK(generic.exit_code == 2);
  CHECK(has(generic.err, "han: error: HAN_GEMM=libxsmm: "));
  const RunResult avx2 = run("HAN_CPU=avx2 " + han_cmd("--version"));
  if (avx2.exit_code != 0 || !has(avx2.out, ", GEMM libxsmm, ")) return;  // no AVX2 here, or no libxsmm
  const TempDir dir;
  const std::string input = first_test_documents(200);
  const std::string on_xsmm = train_small("HAN_CPU=avx2 ", dir, "xsmm");
  const std::string on_eigen = train_small("HAN_CPU=avx2 HAN_GEMM=eigen ", dir, "eigen");
  CHECK(largest_difference(probabilities("HAN_CPU=avx2 ", on_xsmm, input), probabilities("HAN_CPU=avx2 ", on_eigen, input)) <= 1e-4);
}
#endif

TEST_CASE("HAN_GEMM_PROFILE=1 prints training's products by shape at exit, nothing when unset, one line for another value", "[cli][kernels]") {
  TempDir dir;
  const std::string train = han_cmd("train --config " + source_path("configs/quickstart.json") + " --set data.train=" +
                                    cli_fixture().data + " --set trainer.epochs=1 --set model.linear_member=false --quiet --output ");
  const RunResult profiled = run("HAN_GEMM_PROFILE=1 " + train + (dir.path / "profiled").string());
  INFO(profiled.err);
  REQUIRE(profiled.exit_code == 0);
  const auto rows = lines_of(profiled.err);
  const auto header = std::find_if(rows.begin(), rows.end(), [](const std::string& l) { return l.rfind("han: GEMM profile", 0) == 0; });
  REQUIRE(header != rows.end());
  REQUIRE(rows.end() - header >= 3);  // the header, the column names, at least one shape
  CHECK((has(*(header + 1), "share") && has(*(header + 1), "GFLOP/s")));
  auto ends_with = [](const std::string& text, const std::string& end) {
    return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
  };
  for (auto row = header + 2; row != rows.end(); ++row) {
    INFO(*row);
    CHECK((ends_with(*row, "libxsmm") || ends_with(*row, "eigen") || ends_with(*row, "(every other shape)")));
  }
  const RunResult quiet = run(train + (dir.path / "quiet").string());
  CHECK(quiet.exit_code == 0);
  CHECK_FALSE(has(quiet.err, "GEMM profile"));
  const RunResult bad = run("HAN_GEMM_PROFILE=yes " + han_cmd("--version"));
  CHECK(bad.exit_code == 2);
  CHECK(bad.err == "han: error: HAN_GEMM_PROFILE=yes: expected 1 (profile han's matrix products) or 0\n");
}
