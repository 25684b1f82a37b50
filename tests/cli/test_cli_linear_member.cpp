// model.linear_member as a user meets it: han train adds a TF-IDF linear model to a single
// model or an ensemble, writes it into model.han and says what it came to; predict, eval and
// info read it; a model file without its tensors is refused.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "han/core/number_text.h"
#include "han/infer/classifier.h"
#include "han/infer/model_file.h"
#include "han/nn/linear_member.h"
#include "han/text/encoding.h"
#include "support/paths.h"
#include "support/run.h"
#include "support/sentiment.h"
#include "support/signal_run.h"
#include "support/small_model.h"

using namespace han::test;
using nlohmann::json;

namespace {

std::string train_args(const TempDir& dir, const std::string& out, const std::string& more) {
  return "train --config " + source_path("configs/quickstart.json") + " --set data.train=" +
         head_of_data(dir, "data/train.jsonl", 1500, "train.jsonl") +
         " --set data.dev=" + head_of_data(dir, "data/dev.jsonl", 200, "dev.jsonl") +
         " --set data.test=" + head_of_data(dir, "data/test.jsonl", 300, "test.jsonl") +
         " --set trainer.epochs=2 --set model.linear_member=true" + kTinyModel + " --output " + out + more;
}

// The run's summary line (stdout), after checking it succeeded.
json member_train_ok(const std::string& args) {
  const RunResult r = run(han_cmd(args));
  INFO(args << "\n" << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.err, Catch::Contains(" word pairs, "));
  CHECK_THAT(r.err, Catch::Contains(", fitted by LIBLINEAR at C "));
  CHECK_THAT(r.err, Catch::Contains("linear member weight: "));
  return json::parse(r.out);
}

// The linear member's word weight for `label` minus the other label's.
double leaning(const han::Classifier& c, const std::string& word, const std::string& label) {
  const std::int32_t id = c.vocab.id(word);
  REQUIRE(id != han::Vocab::kUnk);
  const han::Index pos = c.labels[0] == label ? 0 : 1;
  return c.linear.W(pos, id) - c.linear.W(1 - pos, id);
}

}  // namespace

TEST_CASE("model.linear_member: han train adds the member to a single model, and predict, eval and info use it",
          "[cli][linear_member]") {
  const TempDir dir;
  const json summary = member_train_ok(train_args(dir, dir.file("run"), ""));
  REQUIRE(summary.contains("linear_member"));
  const json& member = summary["linear_member"];
  CHECK(member["solver"] == "liblinear");
  CHECK(member["C"].get<double>() > 0);
  CHECK(member["pairs"].get<int>() > 1000);
  CHECK(member["dev_loss"].get<double>() < 0.69);  // better than no opinion
  CHECK(summary["test"]["accuracy"].get<double>() > 0.7);
  // Its share, chosen on dev, strictly between 0 and 1; the model predicts with it.
  const double weight = member["weight"].get<double>();
  CHECK(weight > 0);
  CHECK(weight < 1);

  const han::Classifier model = han::load_classifier(dir.file("run/model.han"));
  CHECK(model.config.model.linear_member);
  CHECK(model.config.model.linear_weight == Approx(weight));
  REQUIRE(model.linear_member() != nullptr);
  const han::Index features = static_cast<han::Index>(model.vocab.size()) + member["pairs"].get<han::Index>() +
                              member["char_grams"].get<han::Index>();
  CHECK(model.linear.gram_count() == member["char_grams"].get<han::Index>());
  CHECK(model.config.model.linear_chars == (model.linear.gram_count() > 0 ? han::Switch::on : han::Switch::off));
  CHECK(model.linear.W.cols() == features);
  CHECK(model.linear.idf.rows() == features);
  CHECK(leaning(model, "worst", "neg") > 0.5);
  CHECK(leaning(model, "excellent", "pos") > 0.5);

  const std::string test = dir.file("test.jsonl");
  CHECK(eval_accuracy(dir.file("run/model.han"), test) == Approx(summary["test"]["accuracy"].get<double>()));
  check_reads_sentiment(dir.file("run/model.han"));

  const RunResult info = run(han_cmd("info --model " + dir.file("run/model.han")));
  INFO(info.err);
  CHECK_THAT(info.out, Catch::Contains("(with a linear member weighing " + han::format_fixed(weight, 2) + ")"));
  CHECK_THAT(info.out, Catch::Contains("bag words: neg "));
  // The training record read as words: the HAN's best epoch, said to be the HAN's, and the
  // member's own row.
  CHECK_THAT(info.out, Catch::Matches("(.|\\n)*\\ntrained +best epoch [0-9]+, dev accuracy [0-9.]+, dev macro-F1 [0-9.]+ \\(the HAN alone\\)\\n(.|\\n)*"));
  CHECK_THAT(info.out, Catch::Matches("(.|\\n)*\\nlinear member +LIBLINEAR, C [0-9.]+, [0-9]+ word pairs(, [0-9]+ character n-grams)?, dev loss [0-9.]+, weight " +
                                      han::format_fixed(weight, 2) + "\\n(.|\\n)*"));
  // And the dev scores of the model as it answers: the train summary's, the blend's.
  CHECK_THAT(info.out, Catch::Contains("\ndev, as it answers   dev accuracy " +
                                       han::format_fixed(summary["dev_accuracy"].get<double>(), 4) + ", dev macro-F1 " +
                                       han::format_fixed(summary["dev_macro_f1"].get<double>(), 4) +
                                       " (the HAN and its linear member)\n"));

  // Its tensors are part of the model: a file without them is refused.
  han::ModelFileContents contents = han::load_model_file(dir.file("run/model.han"));
  std::vector<han::NamedTensor> kept;
  for (han::NamedTensor& t : contents.tensors)
    if (t.name != "linear.W") kept.push_back(std::move(t));
  han::save_model_file(dir.file("broken.han"), contents.header, kept);
  const RunResult broken = run(han_cmd("info --model " + dir.file("broken.han")));
  CHECK(broken.exit_code != 0);
  CHECK_THAT(broken.err, Catch::Contains(dir.file("broken.han") + ": model file is corrupted"));
  // Nor is a file whose word pairs are out of order (its features would be others), when
  // the whole file is read (han predict, which uses it in place, checks its bytes against
  // their checksums, not the order han wrote them in).
  han::ModelFileContents swapped = han::load_model_file(dir.file("run/model.han"));
  for (han::NamedTensor& t : swapped.tensors)
    if (t.name == "linear.pairs") t.value.col(0).swap(t.value.col(1));
  han::save_model_file(dir.file("swapped.han"), swapped.header, swapped.tensors);
  const RunResult unsorted = run(han_cmd("info --model " + dir.file("swapped.han")));
  CHECK(unsorted.exit_code != 0);
  CHECK_THAT(unsorted.err, Catch::Contains(dir.file("swapped.han") + ": model file is corrupted (the word pairs are not sorted)"));

  // A file from before model.linear_weight averaged its linear member in as one more member.
  han::ModelFileContents older = han::load_model_file(dir.file("run/model.han"));
  older.header["config"]["model"].erase("linear_weight");
  han::save_model_file(dir.file("older.han"), older.header, older.tensors);
  CHECK(han::load_classifier(dir.file("older.han")).config.model.linear_weight == Approx(0.5));
}

TEST_CASE("model.linear_member in an ensemble: one member for the ensemble, none in its HAN members",
          "[cli][linear_member][ensemble]") {
  const TempDir dir;
  const json summary = member_train_ok(train_args(dir, dir.file("run"), " --set trainer.ensemble=2"));
  CHECK(summary["linear_member"]["solver"] == "liblinear");
  REQUIRE(summary["members"].size() == 2);
  const han::Classifier model = han::load_classifier(dir.file("run/model.han"));
  REQUIRE(model.linear_member() != nullptr);
  CHECK(model.more_members.size() == 1);
  const han::Classifier first = han::load_classifier(dir.file("run/members/1/model.han"));
  CHECK_FALSE(first.config.model.linear_member);
  CHECK(first.linear_member() == nullptr);
  const RunResult info = run(han_cmd("info --model " + dir.file("run/model.han")));
  CHECK_THAT(info.out, Catch::Contains("(2 members and a linear member weighing " +
                                       han::format_fixed(model.config.model.linear_weight, 2) + ")"));
  CHECK_THAT(info.out, Catch::Contains("2 models; predictions average their answers and attention, then blend "
                                       "that with the linear member at weight " +
                                       han::format_fixed(model.config.model.linear_weight, 2)));
  // The ensemble's dev scores are the model's as it answers; no "trained" row claims them for one HAN.
  CHECK_THAT(info.out, Catch::Matches("(.|\\n)*\\ndev, as it answers +dev accuracy [0-9.]+, dev macro-F1 [0-9.]+ "
                                      "\\(the ensemble and its linear member\\)\\n(.|\\n)*"));
  CHECK_THAT(info.out, !Catch::Contains("\ntrained "));

  // A file from before model.linear_weight: one more member beside two, 1/3; a file whose
  // weight says "auto" is not one han writes.
  han::ModelFileContents older = han::load_model_file(dir.file("run/model.han"));
  older.header["config"]["model"].erase("linear_weight");
  han::save_model_file(dir.file("older.han"), older.header, older.tensors);
  CHECK(han::load_classifier(dir.file("older.han")).config.model.linear_weight == Approx(1.0 / 3));
  older.header["config"]["model"]["linear_weight"] = "auto";
  han::save_model_file(dir.file("auto.han"), older.header, older.tensors);
  const RunResult refused = run(han_cmd("info --model " + dir.file("auto.han")));
  CHECK(refused.exit_code != 0);
  CHECK_THAT(refused.err, Catch::Contains(dir.file("auto.han") + ": model file is corrupted (model.linear_weight is \"auto\")"));
}

TEST_CASE("a run folder from before the member was the default resumes without one, as it would have finished",
          "[cli][linear_member][resume]") {
  const TempDir dir;
  // The member off is written as han wrote every config before it was the default: no key.
  const std::string more = " --set model.linear_member=false --set trainer.epochs=20 --set trainer.patience=0";
  const RunResult whole = run(han_cmd(train_args(dir, dir.file("whole"), more) + " --quiet"));
  INFO(whole.err);
  REQUIRE(whole.exit_code == 0);
  const RunResult stopped = run_and_signal(train_args(dir, dir.file("cut"), more), "epoch 1/", "TERM", dir.file("err"));
  INFO(stopped.err);
  REQUIRE(stopped.exit_code == 143);
  CHECK_FALSE(json::parse(slurp(dir.file("cut/config.json")))["model"].contains("linear_member"));
  CHECK_FALSE(han::load_model_file(dir.file("cut/checkpoint.han")).header["config"]["model"].contains("linear_member"));
  const RunResult resumed = run(han_cmd("train --resume " + dir.file("cut")));
  INFO(resumed.err);
  REQUIRE(resumed.exit_code == 0);
  CHECK_THAT(resumed.err, Catch::Contains("epoch 20/20"));  // the log is on: no member line in it
  CHECK_THAT(resumed.err, !Catch::Contains("linear member"));
  CHECK(han::load_classifier(dir.file("cut/model.han")).linear_member() == nullptr);
  CHECK(slurp(dir.file("cut/model.han")) == slurp(dir.file("whole/model.han")));
}

namespace {

// Documents whose label shows only in their third sentence ("alpha" or "beta"), after two
// sentences of filler words that both labels share: documents 2k and 2k + 1 have the same
// filler and opposite labels.
std::string cue_after_caps_data(int documents, unsigned seed) {
  const std::vector<std::string> filler = {"the", "a", "house", "tree", "river", "stone", "cloud", "road", "lamp", "door"};
  std::string out;
  for (int i = 0; i < documents; ++i) {
    const bool alpha = (i + seed) % 2 == 0;
    std::string text;
    for (int s = 0; s < 2; ++s) {
      for (int w = 0; w < 6; ++w) text += filler[((i / 2) * 7 + s * 3 + w * (seed + 5)) % filler.size()] + " ";
      text += ". ";
    }
    text += std::string(alpha ? "alpha" : "beta") + " sits here .";
    out += json{{"label", alpha ? "a" : "b"}, {"text", text}}.dump() + "\n";
  }
  return out;
}

}  // namespace

TEST_CASE("model.linear_text: the linear member reads the whole document, the HAN only its caps",
          "[cli][linear_member][caps]") {
  const TempDir dir;
  write(dir.file("train.jsonl"), cue_after_caps_data(300, 1));
  write(dir.file("dev.jsonl"), cue_after_caps_data(60, 2));
  write(dir.file("test.jsonl"), cue_after_caps_data(60, 3));
  const std::string args = "train --set data.train=" + dir.file("train.jsonl") + " --set data.dev=" + dir.file("dev.jsonl") +
                           " --set data.test=" + dir.file("test.jsonl") +
                           " --set tokenizer.max_sentences=2 --set tokenizer.max_words=20 --set trainer.epochs=1" +
                           " --set model.linear_weight=1" + kTinyModel + " --quiet --output ";
  const RunResult whole = run(han_cmd(args + dir.file("whole")));
  INFO(whole.err);
  REQUIRE(whole.exit_code == 0);
  CHECK(json::parse(whole.out)["test"]["accuracy"].get<double>() > 0.95);
  const han::Classifier model = han::load_classifier(dir.file("whole/model.han"));
  CHECK(model.config.model.linear_text == han::LinearText::whole);
  CHECK(model.vocab.id("alpha") != han::Vocab::kUnk);  // past the caps, yet in the vocabulary

  // Read within the caps, the member never sees the cue.
  const RunResult caps = run(han_cmd(args + dir.file("caps") + " --set model.linear_text=caps"));
  INFO(caps.err);
  REQUIRE(caps.exit_code == 0);
  CHECK(json::parse(caps.out)["test"]["accuracy"].get<double>() < 0.7);

  // Predict reads the whole text for the member; --explain shows what the HAN read.
  const std::string doc = "the house by the river stands . a road and a lamp . alpha sits here .\n";
  const RunResult predicted = run(han_cmd("predict --format json --explain --model " + dir.file("whole")), doc);
  INFO(predicted.err);
  REQUIRE(predicted.exit_code == 0);
  const json row = json::parse(predicted.out);
  CHECK(row["label"] == "a");
  CHECK(row["attention"]["sentences"].size() == 2);
  CHECK(row["attention"]["truncated"] == true);
  CHECK(run(han_cmd("eval --model " + dir.file("whole") + " --data " + dir.file("test.jsonl"))).out.find("accuracy 1.0000") !=
        std::string::npos);

  // Files from before the setting have no key, and their member read within the caps: a
  // member that reads the caps is written as they were.
  CHECK(han::load_model_file(dir.file("whole/model.han")).header["config"]["model"]["linear_text"] == "whole");
  CHECK_FALSE(han::load_model_file(dir.file("caps/model.han")).header["config"]["model"].contains("linear_text"));
  CHECK(han::load_classifier(dir.file("caps/model.han")).config.model.linear_text == han::LinearText::caps);
}

TEST_CASE("model.linear_chars: the member weighs an unseen word by its character n-grams, and auto says what it chose",
          "[cli][linear_member][char_grams]") {
  const TempDir dir;
  const RunResult chars = run(han_cmd(train_args(dir, dir.file("chars"), " --set model.linear_chars=true --set model.linear_weight=1")));
  INFO(chars.err);
  REQUIRE(chars.exit_code == 0);
  const json member = json::parse(chars.out)["linear_member"];
  CHECK(member["char_grams"].get<int>() > 1000);
  // Prediction reads the n-gram tables where they lie in the file: the same logits as copied.
  {
    const std::string path = dir.file("chars/model.han");
    const han::Classifier copied = han::load_classifier(path);
    const han::Classifier mapped = han::load_classifier(path, nullptr, nullptr, han::Residence::mapped);
    REQUIRE(!mapped.linear.grams.word_grams_stored.empty());
    const han::Documents docs =
        han::encode_all(han::read_examples(dir.file("test.jsonl"), han::DataFormat::jsonl, true), copied.tokenizer(),
                        copied.caps(), copied.vocab, copied.labels, true);
    std::vector<han::Index> all(docs.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<han::Index>(i);
    const auto logits = [&](const han::Classifier& c) {
      return han::linear_member_logits(c.linear, han::linear_member_features(c.linear, docs, all));
    };
    CHECK(logits(copied).isApprox(logits(mapped), 1e-6f));
  }
  const RunResult words = run(han_cmd(train_args(dir, dir.file("words"), " --set model.linear_chars=false --set model.linear_weight=1")));
  INFO(words.err);
  REQUIRE(words.exit_code == 0);
  CHECK(json::parse(words.out)["linear_member"]["char_grams"] == 0);
  const han::Classifier without = han::load_classifier(dir.file("words/model.han"));
  CHECK(without.config.model.linear_chars == han::Switch::off);
  CHECK(without.linear.gram_count() == 0);

  // Words the training data never shows, made of parts that it does: only the n-grams reach them.
  const std::string doc = "{\"text\": \"Horribleness. Awfulish and boringest, the worstest.\"}\n";
  for (const char* word : {"horribleness", "awfulish", "boringest", "worstest"})
    REQUIRE(without.vocab.id(word) == han::Vocab::kUnk);
  const auto member_neg = [&](const std::string& model) {
    const RunResult r = run(han_cmd("predict --format json --explain --model " + model), doc);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const json row = json::parse(r.out);
    const double p = row["linear_member"]["member_probability"].get<double>();
    return row["linear_member"]["label"] == "neg" ? p : 1 - p;
  };
  CHECK(member_neg(dir.file("chars")) > member_neg(dir.file("words")) + 0.1);
  CHECK(member_neg(dir.file("chars")) > 0.6);

  // auto: fitted both ways, the one of lower dev loss kept, and the log says which.
  const RunResult chosen = run(han_cmd(train_args(dir, dir.file("auto"), "")));
  INFO(chosen.err);
  REQUIRE(chosen.exit_code == 0);
  CHECK_THAT(chosen.err, Catch::Matches("(.|\\n)*linear member: character n-grams (kept|left out) \\(linear_chars auto: "
                                        "dev loss [0-9.]+ with [0-9]+ of them, [0-9.]+ without\\)(.|\\n)*"));
  const han::Classifier chose = han::load_classifier(dir.file("auto/model.han"));
  CHECK(chose.config.model.linear_chars != han::Switch::auto_);  // a model holds what was chosen
}
