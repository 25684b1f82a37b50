// `han predict` reads documents as training and `han eval` do: one encoding (tokenize,
// then vocabulary ids) shared by the data readers and the streaming predictor.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "han/infer/classifier.h"
#include "han/infer/predictor.h"
#include "han/text/dataset.h"
#include "han/text/encoding.h"
#include "han/text/reading.h"
#include "support/run.h"

using namespace han;
using namespace han::test;

TEST_CASE("encode_words gives each word its id, unknown words UNK, sentence by sentence", "[dataset][encoding]") {
  const Vocab vocab = Vocab::from_words({"<pad>", "<unk>", "good", "film", "."});
  const TokenizedText words = {{"good", "film", "."}, {"dull", "film"}};
  const Document d = encode_words(words, vocab);
  CHECK(d.label == -1);
  CHECK(d.sentences == std::vector<std::vector<std::int32_t>>{{2, 3, 4}, {Vocab::kUnk, 3}});
  CHECK(encode_words(words, vocab, 1).label == 1);

  const Tokenizer tokenizer;
  Example e;
  e.text = "Good film. Dull film";
  e.label = "pos";
  e.has_label = true;
  const Document via_example = encode(e, tokenizer, vocab, {"neg", "pos"});
  CHECK(via_example.sentences == encode_words(tokenizer.tokenize(e.text), vocab).sentences);
  CHECK(via_example.label == 1);
}

TEST_CASE("predict answers what the library answers for the documents eval reads", "[cli][predict][encoding]") {
  const TempDir dir;
  const auto all = lines_of(slurp(source_path("data/train.jsonl")));
  std::string small;
  for (std::size_t i = 0; i < 300; ++i) small += all[i] + "\n";
  std::string dev;
  const auto dev_lines = lines_of(slurp(source_path("data/dev.jsonl")));
  for (std::size_t i = 0; i < 40; ++i) dev += dev_lines[i] + "\n";
  const std::string dev_path = dir.write("dev.jsonl", dev);
  const RunResult trained = run(han_cmd("train --quiet --config " + source_path("configs/quickstart.json") +
                                        " --set data.train=" + dir.write("small.jsonl", small) +
                                        " --set data.test= --set trainer.epochs=1 --set model.embedding_dim=8"
                                        " --set model.word_hidden=4 --set model.sentence_hidden=4"
                                        " --set model.attention_dim=8 --output " + dir.file("run")));
  INFO(trained.err);
  REQUIRE(trained.exit_code == 0);
  const std::string model = dir.file("run/model.han");

  const RunResult predicted = run(han_cmd("predict --model " + model + " --data-format jsonl --format json --top-k 2 " + dev_path));
  INFO(predicted.err);
  REQUIRE(predicted.exit_code == 0);
  const auto lines = lines_of(predicted.out);
  REQUIRE(lines.size() == 40);

  const Classifier c = load_classifier(model);
  const Documents docs =
      encode_all(read_examples(dev_path, DataFormat::jsonl, true), c.tokenizer(), c.caps(), c.vocab, c.labels,
                 keeps_unknown_words(c.config.model));
  REQUIRE(c.linear_member() != nullptr);  // the default: the HAN and its linear member together
  const Matrix probs = Predictor(c.members(), c.config.model, 1, c.head, c.weighted_linear_member()).predict(docs, 64);
  for (std::size_t i = 0; i < docs.size(); ++i) {
    const nlohmann::json j = nlohmann::json::parse(lines[i]);
    for (const nlohmann::json& k : j["top_k"]) {
      const auto label = std::find(c.labels.begin(), c.labels.end(), k["label"].get<std::string>()) - c.labels.begin();
      CHECK(k["probability"].get<double>() == Approx(probs(label, static_cast<Index>(i))).margin(1e-6));
    }
  }
}
