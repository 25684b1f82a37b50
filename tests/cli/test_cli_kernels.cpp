// HAN_CPU as a user meets it: a portable build (HAN_NATIVE=OFF) runs the kernel variant it is
// told to (if the CPU can), says so in --version, and every variant predicts what the others
// do to 1e-5; a native build has one variant and refuses any other by name.
#include <catch2/catch.hpp>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/cli_fixture.h"
#include "support/paths.h"
#include "support/run.h"

using namespace han::test;

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

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
namespace {
// The probabilities of `han predict` on the first 200 test documents, every label's.
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

}  // namespace

TEST_CASE("HAN_CPU picks a portable build's kernels and every variant predicts alike to 1e-5", "[cli][kernels]") {
  const CliFixture& f = cli_fixture();
  const auto lines = lines_of(slurp(source_path("data/test.jsonl")));
  std::string input;
  for (std::size_t i = 0; i < 200; ++i) input += lines[i] + "\n";
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
    const std::vector<double> p = probabilities(env, f.model, input);
    REQUIRE(p.size() == chosen.size());
    double worst = 0;
    for (std::size_t i = 0; i < p.size(); ++i) worst = std::max(worst, std::abs(p[i] - chosen[i]));
    CHECK(worst <= 1e-5);
    ++ran;
  }
  CHECK(ran >= 1);  // generic runs everywhere
}
#endif
