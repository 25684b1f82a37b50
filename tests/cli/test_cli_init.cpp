// han train --init MODEL, as a user meets it: a model trained on one slice of data is
// trained further on a second slice (same labels) or fine-tuned for new labels (a fresh
// output layer, the vocabulary optionally extended), and the result is a model like any
// other. The slices are synthetic so that what each model can know is clear: in slice A
// the label follows "good"/"bad", in slice B "red"/"blue" (each slice carries the other's
// cue words as noise, so both are in A's vocabulary), in slice C three new labels follow
// three words A never saw.
#include <catch2/catch.hpp>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "han/infer/classifier.h"
#include "support/interrupted_run.h"
#include "support/paths.h"
#include "support/run.h"
#include "support/signal_run.h"

using namespace han::test;

namespace {

struct Slice {
  std::vector<std::string> labels, cues, noise;  // cues[i] marks labels[i]
};

const Slice kSliceA{{"neg", "pos"}, {"bad", "good"}, {"blue", "red"}};
const Slice kSliceB{{"neg", "pos"}, {"blue", "red"}, {"bad", "good"}};
const Slice kSliceD{{"neg", "pos"}, {"blue", "red"}, {"town", "story"}};
const Slice kSliceC{{"x", "y", "z"}, {"alpha", "beta", "gamma"}, {"bad", "good", "blue", "red"}};

// `n` jsonl documents of `slice`: two sentences of filler words with the label's cue and a
// noise word at random places.
std::string slice_jsonl(const Slice& slice, int n, unsigned seed) {
  static const std::vector<std::string> filler = {"the", "film", "was", "a", "story", "about", "people", "in",
                                                  "town", "with", "music", "and", "long", "scenes", "of", "rain"};
  std::mt19937 rng(seed);
  auto pick = [&rng](const std::vector<std::string>& v) { return v[rng() % v.size()]; };
  std::string out;
  for (int d = 0; d < n; ++d) {
    const std::size_t label = rng() % slice.labels.size();
    std::vector<std::string> words;
    for (int w = 0; w < 12; ++w) words.push_back(pick(filler));
    words[rng() % words.size()] = slice.cues[label];
    words[rng() % words.size()] = pick(slice.noise);
    std::string text;
    for (int w = 0; w < 12; ++w) text += words[w] + (w == 5 ? ". " : w == 11 ? "." : " ");
    out += nlohmann::json{{"label", slice.labels[label]}, {"text", text}}.dump() + "\n";
  }
  return out;
}

// Writes <name>_train/_dev/_test.jsonl of a slice into `dir`.
void write_slice(const TempDir& dir, const std::string& name, const Slice& slice, unsigned seed) {
  dir.write(name + "_train.jsonl", slice_jsonl(slice, 400, seed));
  dir.write(name + "_dev.jsonl", slice_jsonl(slice, 100, seed + 1));
  dir.write(name + "_test.jsonl", slice_jsonl(slice, 200, seed + 2));
}

// A config for slice `name`; `model` is its model section ("" = none: taken from --init).
std::string write_config(const TempDir& dir, const std::string& name, const std::string& model) {
  nlohmann::json cfg = {
      {"data", {{"train", name + "_train.jsonl"}, {"dev", name + "_dev.jsonl"}, {"test", name + "_test.jsonl"}}},
      {"tokenizer", {{"min_count", 2}}},
      {"optimizer", {{"lr", 0.01}}},
      {"trainer", {{"epochs", 5}, {"patience", 0}, {"threads", 1}}}};
  if (!model.empty()) cfg["model"] = nlohmann::json::parse(model);
  return dir.write("cfg_" + name + ".json", cfg.dump());
}

const std::string kInitModelJson = R"({"embedding_dim": 16, "word_hidden": 8, "sentence_hidden": 8, "attention_dim": 16})";

RunResult train(const std::string& args) {
  const RunResult r = run(han_cmd("train " + args));
  INFO(args << "\n" << r.err);
  REQUIRE(r.exit_code == 0);
  return r;
}

double accuracy(const std::string& model, const std::string& data) {
  const RunResult r = run(han_cmd("eval --model " + model + " --data " + data + " --format json"));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out).at("accuracy").get<double>();
}

nlohmann::json info(const std::string& model) {
  const RunResult r = run(han_cmd("info --json --model " + model));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out);
}

// Slice A's model, trained in `dir`/a.
std::string train_parent(const TempDir& dir) {
  write_slice(dir, "a", kSliceA, 1);
  train("--config " + write_config(dir, "a", kInitModelJson) + " --output " + dir.file("a"));
  return dir.file("a/model.han");
}

void check_refused(const RunResult& r, const std::vector<std::string>& parts) {
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(lines_of(r.err).size() == 1);
  for (const std::string& p : parts) CHECK(has(r.err, p));
}

}  // namespace

TEST_CASE("train --init trains a model further on a second slice: it beats its parent there and is a model like any other",
          "[cli][init]") {
  const TempDir dir;
  const std::string parent = train_parent(dir);
  write_slice(dir, "b", kSliceB, 11);
  // No model section: the architecture and the tokenizer settings come from the parent.
  const RunResult r = train("--config " + write_config(dir, "b", "") + " --init " + parent + " --output " + dir.file("b"));
  CHECK(has(r.err, "init: starting from " + parent + ", same labels (neg, pos): training it further"));
  CHECK(has(r.err, "vocabulary: the model's"));
  const std::string child = dir.file("b/model.han");
  const double before = accuracy(parent, dir.file("b_test.jsonl"));
  const double after = accuracy(child, dir.file("b_test.jsonl"));
  INFO("parent " << before << ", fine-tuned " << after << " on slice B's test part");
  CHECK(before < 0.75);
  // B's cue words are A's noise and A's cues are B's noise: the parent's member, fitted
  // exactly, holds A's cues firmly and its SGD continuation unlearns them over its epochs
  // (the child then scored 0.885; a slice's best is about 0.95, its cue overwritten by noise in some documents).
  CHECK(after > 0.85);
  CHECK(after > before + 0.2);

  const nlohmann::json child_info = info(child);
  CHECK(child_info.at("parent") == parent);
  CHECK(child_info.at("config").at("tokenizer").at("min_count") == 2);
  CHECK(child_info.at("vocabulary_size") == info(parent).at("vocabulary_size"));
  CHECK(child_info.at("config").at("model").at("word_hidden") == 8);
  CHECK(has(run(han_cmd("info --model " + child)).out, "parent model"));
  const RunResult explained =
      run(han_cmd("predict --model " + child + " --format json --explain"), "the film was red. music and rain.\n");
  INFO(explained.err);
  REQUIRE(explained.exit_code == 0);
  const nlohmann::json line = nlohmann::json::parse(explained.out);
  CHECK(line.at("label") == "pos");
  CHECK(line.contains("attention"));
}

TEST_CASE("train --init with new labels gets a fresh output layer and trainer.extend_vocab adds the new words",
          "[cli][init]") {
  const TempDir dir;
  const std::string parent = train_parent(dir);
  write_slice(dir, "c", kSliceC, 21);
  const std::string config = write_config(dir, "c", "");
  const RunResult extended = train("--config " + config + " --init " + parent + " --output " + dir.file("c_ext") +
                                   " --set trainer.extend_vocab=true");
  CHECK(has(extended.err, "new labels (x, y, z; the model had neg, pos): a fresh output layer, every other layer kept"));
  CHECK(has(extended.err, "new words of train with fresh embeddings"));
  const RunResult kept = train("--config " + config + " --init " + parent + " --output " + dir.file("c_kept") +
                               " --set tokenizer.min_count=auto");
  CHECK(has(kept.err, "words of train it lacks read as <unk> (trainer.extend_vocab=true adds them)"));
  // The parent's vocabulary stands, so does the min_count it was made with: nothing to choose.
  CHECK_FALSE(has(kept.err, "min_count: "));
  CHECK(nlohmann::json::parse(slurp(dir.file("c_kept/config.json"))).at("tokenizer").at("min_count") == 2);

  const auto parent_words = info(parent).at("vocabulary_size").get<int>();
  CHECK(info(dir.file("c_ext/model.han")).at("vocabulary_size").get<int>() == parent_words + 3);  // alpha, beta, gamma
  CHECK(info(dir.file("c_kept/model.han")).at("vocabulary_size").get<int>() == parent_words);
  CHECK(info(dir.file("c_ext/model.han")).at("labels") == nlohmann::json{"x", "y", "z"});
  // The new labels' cue words are new: only the extended vocabulary can read them.
  const double with_words = accuracy(dir.file("c_ext/model.han"), dir.file("c_test.jsonl"));
  const double without = accuracy(dir.file("c_kept/model.han"), dir.file("c_test.jsonl"));
  INFO("extended " << with_words << ", kept " << without);
  CHECK(with_words > 0.75);
  CHECK(with_words > without + 0.3);
  CHECK(without < 0.6);
  // A dev file with the parent's labels: the error names the labels this run trains.
  const RunResult wrong_dev = run(han_cmd("train --config " + config + " --init " + parent + " --output " +
                                          dir.file("c_wrong") + " --set data.dev=" + dir.file("a_dev.jsonl")));
  CHECK(wrong_dev.exit_code != 0);
  CHECK(has(wrong_dev.err, "a_dev.jsonl:1: label \"") );
  CHECK(has(wrong_dev.err, "\" is not one of the run's 3 labels (\"x\", \"y\", \"z\")"));
}

TEST_CASE("train --init refuses a contradicting architecture key or a checkpoint and so do --resume and ablate: one line each",
          "[cli][init]") {
  const TempDir dir;
  const std::string parent = train_parent(dir);
  write_slice(dir, "b", kSliceB, 11);
  const std::string config = write_config(dir, "b", "");
  check_refused(run(han_cmd("train --config " + config + " --init " + parent + " --output " + dir.file("o") +
                            " --set model.embedding_dim=32")),
                {"--set model.embedding_dim=32: model.embedding_dim is 32, but the model it starts from (" + parent +
                     ") has 16", "keeps its architecture; leave model.embedding_dim out"});
  // The same key in the config file is named by the file; an equal value is fine.
  const std::string clash = write_config(dir, "b_clash", R"({"mask": "none", "embedding_dim": 16})");
  check_refused(run(han_cmd("train --config " + clash + " --init " + parent + " --output " + dir.file("o"))),
                {clash + ": model.mask is \"none\"", "has \"renorm\""});
  CHECK(!std::filesystem::exists(dir.file("o/config.json")));

  const std::string checkpoint = interrupted_run(dir.file("interrupted"));
  check_refused(run(han_cmd("train --config " + config + " --init " + checkpoint +
                            " --output " + dir.file("o"))),
                {"this is a training checkpoint, not a model", "han train --resume " + dir.file("interrupted")});

  check_refused(run(han_cmd("train --resume " + dir.file("interrupted") + " --init " + parent)),
                {"--resume continues a run as it was configured: it takes no data file, --set, --seeds, --init"});
  check_refused(run(han_cmd("ablate --config " + config + " --set trainer.init=" + parent + " --output " +
                            dir.file("ablate"))),
                {"trainer.init: han ablate trains every variant from scratch"});
}

TEST_CASE("an interrupted train --init run resumes to the model an uninterrupted one gives", "[cli][init]") {
  const TempDir dir;
  const std::string parent = train_parent(dir);
  REQUIRE(han::load_classifier(parent).linear_member() != nullptr);  // the parent has the default's member
  write_slice(dir, "b", kSliceB, 11);
  // As the parent, and with a setting of the child's own at its default (the member off,
  // which config.json leaves out): resumed, it must stay the child's.
  for (const std::string more : {"", " --set model.linear_member=false"}) {
    INFO(more);
    const std::string args = "--config " + write_config(dir, "b", "") + " --init " + parent + more +
                             " --set trainer.epochs=20 --set trainer.extend_vocab=true --output ";
    const std::string name = more.empty() ? "as_parent" : "member_off";
    const std::string whole = dir.file(name + "_whole"), cut = dir.file(name + "_cut");
    train(args + whole);
    const RunResult stopped = run_and_signal("train " + args + cut, "epoch 1/", "INT", dir.file("err"));
    INFO(stopped.err);
    REQUIRE(stopped.exit_code == 130);
    const RunResult resumed = run(han_cmd("train --resume " + cut));
    INFO(resumed.err);
    REQUIRE(resumed.exit_code == 0);
    CHECK((han::load_classifier(cut + "/model.han").linear_member() != nullptr) == more.empty());
    const std::string text = slurp(dir.file("b_test.jsonl"));
    const std::string predict = "predict --format json --data-format jsonl --model ";
    CHECK(run(han_cmd(predict + cut + "/model.han"), text).out == run(han_cmd(predict + whole + "/model.han"), text).out);
  }
}

TEST_CASE("train --init keeps what freeze_embeddings auto decided for its parent's table", "[cli][init]") {
  const TempDir dir;
  write_slice(dir, "a", kSliceA, 1);
  write_slice(dir, "b", kSliceB, 11);
  dir.write("unlabeled.txt", "the film was good and the music was red\nrain in town with blue scenes\n");
  const std::string pretrained =
      R"({"embedding_dim": 16, "word_hidden": 8, "sentence_hidden": 8, "attention_dim": 16, "embeddings": "pretrain",
          "freeze_embeddings": "auto"})";
  const RunResult parent = train("--config " + write_config(dir, "a", pretrained) + " --output " + dir.file("a") +
                                 " --set data.unlabeled=" + dir.file("unlabeled.txt") + " --set embed.epochs=1");
  CHECK(has(parent.err, "kept fixed in training (freeze_embeddings auto"));
  // The child has no model.embeddings of its own: auto alone would now say "trained".
  train("--config " + write_config(dir, "b", "") + " --init " + dir.file("a/model.han") + " --output " + dir.file("b"));
  CHECK(nlohmann::json::parse(slurp(dir.file("b/config.json"))).at("model").at("freeze_embeddings") == true);
  train("--config " + write_config(dir, "b", "") + " --init " + dir.file("a/model.han") + " --output " + dir.file("b2") +
        " --set model.freeze_embeddings=false");
  CHECK(nlohmann::json::parse(slurp(dir.file("b2/config.json"))).at("model").at("freeze_embeddings") == false);
}

TEST_CASE("train --init continues the parent's linear member: the child learns slice D and still answers slice A",
          "[cli][init][linear_member]") {
  const TempDir dir;
  const std::string parent = train_parent(dir);  // with the default linear member
  REQUIRE(info(parent).at("config").at("model").at("linear_member") == true);
  // Slice D never shows A's cue words: nothing in it tells the member to unlearn them.
  write_slice(dir, "d", kSliceD, 31);
  const RunResult r = train("--config " + write_config(dir, "d", "") + " --init " + parent + " --output " + dir.file("d"));
  CHECK(has(r.err, "linear member: continues the parent's (trainer.init): its weights, trained further on this run's data"));
  const std::string child = dir.file("d/model.han");
  const double a_parent = accuracy(parent, dir.file("a_test.jsonl")), a_child = accuracy(child, dir.file("a_test.jsonl"));
  const double d_child = accuracy(child, dir.file("d_test.jsonl"));
  INFO("slice A test: parent " << a_parent << ", child " << a_child << "; slice D test: child " << d_child);
  CHECK(d_child > 0.9);
  // Slice D never shows A's cue words: their member weights get no gradient and stay the parent's.
  const han::Classifier p = han::load_classifier(parent), c = han::load_classifier(child);
  for (const char* word : {"good", "bad"}) {
    const std::int32_t id = p.vocab.id(word);
    REQUIRE(id > han::Vocab::kUnk);
    CHECK(p.linear.W.col(id).cwiseAbs().maxCoeff() > 0);
    CHECK(c.linear.W.col(id) == p.linear.W.col(id));
  }
  // A fresh member, trained on D alone, knows nothing of A's cues: the child then scored
  // 0.47 on A's test part (chance); the continued member keeps them. A's test documents
  // carry D's cues as noise, which pulls the child's answers away from A's (hence not 0.9).
  CHECK(a_child > 0.65);
}

TEST_CASE("model.linear_weight as set is kept, and train --init chooses its linear member's weight anew", "[cli][init][linear_member]") {
  const TempDir dir;
  write_slice(dir, "a", kSliceA, 1);
  write_slice(dir, "b", kSliceB, 11);
  // A weight as set is the one the parent keeps.
  const RunResult parent = train("--config " + write_config(dir, "a", kInitModelJson) + " --output " + dir.file("a") +
                                 " --set model.linear_member=true --set model.linear_weight=0.3");
  CHECK(has(parent.err, "linear member weight: 0.30 (set)"));
  CHECK(info(dir.file("a/model.han")).at("config").at("model").at("linear_weight") == 0.3);
  const RunResult child =
      train("--config " + write_config(dir, "b", "") + " --init " + dir.file("a/model.han") + " --output " + dir.file("b"));
  CHECK(has(child.err, "linear member weight: "));
  CHECK_FALSE(has(child.err, "linear member weight: 0.30 (set)"));
  CHECK(has(child.err, "(auto: the lowest dev loss"));
}
