#pragma once
// For CLI tests of models trained on the bundled (IMDB) data: han eval scores a test file
// above chance, and han predict reads one plainly positive and one plainly negative line
// from stdin the right way.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/paths.h"
#include "support/run.h"

namespace han::test {

// The model's accuracy on `test` (han eval --format json), after checking eval succeeded.
inline double eval_accuracy(const std::string& model, const std::string& test) {
  const RunResult eval = run(han_cmd("eval --model " + model + " --format json --data " + test));
  INFO(eval.err);
  REQUIRE(eval.exit_code == 0);
  return nlohmann::json::parse(eval.out)["accuracy"].get<double>();
}

inline void check_reads_sentiment(const std::string& model) {
  const RunResult predict =
      run(han_cmd("predict --model " + model + " -"), "a wonderful , excellent film .\nthe worst waste of time .\n");
  INFO(predict.err);
  const std::vector<std::string> rows = lines_of(predict.out);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].rfind("pos\t", 0) == 0);
  CHECK(rows[1].rfind("neg\t", 0) == 0);
}

}  // namespace han::test
