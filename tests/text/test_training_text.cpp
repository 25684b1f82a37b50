// The training text read once: labels numbered in sorted order, and numbers (regression
// targets) never counted as labels, however many distinct ones there are.
#include <catch2/catch.hpp>

#include "han/core/error.h"
#include "han/text/training_text.h"
#include "support/paths.h"

using namespace han;
using namespace han::test;

TEST_CASE("training text: labels sorted, targets never counted against the label limit", "[training_text]") {
  TempDir dir;
  std::string labelled, numbers;
  for (const char* label : {"zeta", "alpha", "mid", "alpha"}) labelled += std::string("{\"label\": \"") + label + "\", \"text\": \"a b.\"}\n";
  for (std::size_t i = 0; i <= kMaxLabels; ++i) numbers += "{\"target\": " + std::to_string(i) + ", \"text\": \"a\"}\n";
  const Tokenizer tokenizer;
  LabelOptions single;
  const TrainingText text = read_training_text(dir.write("l.jsonl", labelled), DataFormat::jsonl, single, tokenizer);
  CHECK(text.labels == std::vector<std::string>{"alpha", "mid", "zeta"});
  CHECK(text.answers.labels == std::vector<std::int32_t>{2, 0, 1, 0});
  LabelOptions regression;
  regression.task = Task::regression;
  const TrainingText targets = read_training_text(dir.write("n.jsonl", numbers), DataFormat::jsonl, regression, tokenizer);
  CHECK(targets.documents() == kMaxLabels + 1);
  CHECK(targets.labels.empty());
  CHECK(targets.answers.targets.back() == static_cast<float>(kMaxLabels));
}
