// model.bag = words as a user meets it: han train writes a model whose bag-of-words
// weights learned the corpus's telling words, predict and eval read it, han info lists
// them, and a run started from it (--init) keeps its weights, growing them for new words.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "han/infer/classifier.h"
#include "support/paths.h"
#include "support/run.h"
#include "support/sentiment.h"
#include "support/small_model.h"
#include "support/signal_run.h"

using namespace han::test;
using nlohmann::json;

namespace {

std::string train_args(const TempDir& dir, const std::string& train, const std::string& out, const std::string& more) {
  return "train --config " + source_path("configs/quickstart.json") + " --set data.train=" + train +
         " --set data.dev=" + head_of_data(dir, "data/dev.jsonl", 100, "dev.jsonl") +
         " --set data.test= --set trainer.epochs=3 --set trainer.patience=0 --set model.bag=words" + kTinyModel +
         " --output " + out + more + " --quiet";
}

void run_ok(const std::string& args) {
  const RunResult r = run(han_cmd(args));
  INFO(args << "\n" << r.err);
  REQUIRE(r.exit_code == 0);
}

// The bag's weight of `word` for `label` minus its weight for the other label.
double leaning(const han::Classifier& c, const std::string& word, const std::string& label) {
  const std::int32_t id = c.vocab.id(word);
  REQUIRE(id != han::Vocab::kUnk);
  const han::Index pos = c.labels[0] == label ? 0 : 1;
  return c.params.bag.W(pos, id) - c.params.bag.W(1 - pos, id);
}

}  // namespace

TEST_CASE("model.bag=words: the bag learns the telling words, predict and eval read it, --init keeps and grows it",
          "[cli][bag]") {
  const TempDir dir;
  const std::string train = head_of_data(dir, "data/train.jsonl", 1500, "train.jsonl");
  run_ok(train_args(dir, train, dir.file("run"), ""));
  const han::Classifier model = han::load_classifier(dir.file("run/model.han"));
  REQUIRE(model.config.model.bag == han::Bag::words);
  REQUIRE(model.params.bag.W.cols() == static_cast<han::Index>(model.vocab.size()));
  // Sentiment words lean the right way; PAD never does.
  CHECK(leaning(model, "worst", "neg") > 0.05);
  CHECK(leaning(model, "waste", "neg") > 0.05);
  CHECK(leaning(model, "excellent", "pos") > 0.05);
  CHECK(leaning(model, "wonderful", "pos") > 0.05);
  CHECK(model.params.bag.W.col(0).isZero());

  CHECK(eval_accuracy(dir.file("run/model.han"), head_of_data(dir, "data/test.jsonl", 300, "test.jsonl")) > 0.7);
  check_reads_sentiment(dir.file("run/model.han"));

  // han info lists the words the term weighs most for each label.
  const RunResult info = run(han_cmd("info --model " + dir.file("run/model.han")));
  INFO(info.err);
  CHECK_THAT(info.out, Catch::Contains("bag words: neg "));
  CHECK_THAT(info.out, Catch::Contains("bag words: pos "));
  const json info_json = json::parse(run(han_cmd("info --json --model " + dir.file("run/model.han"))).out);
  REQUIRE(info_json["bag_words"].size() == 2);
  const std::string top_neg = info_json["bag_words"][0]["words"][0][0];
  CHECK(info_json["bag_words"][0]["answer"] == "neg");
  CHECK(leaning(model, top_neg, "neg") > 0.05);

  // Trained further on more documents with new words: the old columns go on from the model.
  const std::string more = head_of_data(dir, "data/test.jsonl", 600, "more.jsonl");
  run_ok(train_args(dir, more, dir.file("run2"), " --init " + dir.file("run/model.han") +
                                                    " --set trainer.extend_vocab=true --set trainer.epochs=1"));
  const han::Classifier child = han::load_classifier(dir.file("run2/model.han"));
  CHECK(child.config.model.bag == han::Bag::words);
  REQUIRE(child.vocab.size() > model.vocab.size());
  CHECK(child.params.bag.W.cols() == static_cast<han::Index>(child.vocab.size()));
  CHECK(leaning(child, "worst", "neg") > 0.05);
  // A run from it cannot drop the term: that is its architecture.
  const RunResult refused =
      run(han_cmd(train_args(dir, more, dir.file("run3"), " --init " + dir.file("run/model.han") + " --set model.bag=none")));
  CHECK(refused.exit_code != 0);
  CHECK_THAT(refused.err, Catch::Contains("model.bag is \"none\", but the model it starts from (" + dir.file("run/model.han") + ") has \"words\""));
}
