// han embed and model.embeddings = "pretrain", run through the binary as a user runs them.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "han/infer/classifier.h"
#include "support/paths.h"
#include "support/run.h"
#include "support/signal_run.h"

using namespace han::test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Whether a model's vocabulary holds `word` (loaded as han loads it).
bool in_vocabulary(const std::string& model, const std::string& word) {
  return han::load_classifier(model).vocab.id(word) != han::Vocab::kUnk;
}

// Three short "documents" per topic, repeated: enough for min_count 5.
std::string plain_text(int repeats) {
  std::string out;
  for (int i = 0; i < repeats; ++i)
    out += "The cat sat on the mat.\nA dog ran in the park!\nThe cat and the dog play.\n";
  return out;
}

const std::string kSmall = " --set model.embedding_dim=8 --set trainer.threads=1 --set embed.epochs=2";

void check_one_line_error(const RunResult& r, int code, const std::string& must_mention) {
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == code);
  CHECK(r.out.empty());
  const auto errs = lines_of(r.err);
  REQUIRE(errs.size() == 1);
  CHECK(errs[0].rfind("han: error: ", 0) == 0);
  CHECK(errs[0].find(must_mention) != std::string::npos);
}

}  // namespace

TEST_CASE("han embed writes word2vec text vectors and a JSON summary, and one thread repeats itself", "[embed_cli]") {
  TempDir tmp;
  const std::string a = tmp.write("a.txt", plain_text(20)), b = tmp.write("b.txt", plain_text(5));
  const std::string out = tmp.file("vectors.txt");
  const RunResult r = run(han_cmd("embed --input " + a + " " + b + " --output " + out + kSmall));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const json summary = json::parse(r.out);
  // 14 words (the cat sat on mat . a dog ran in park ! and play), 7 per line, 3 lines x 25.
  CHECK(summary["words"] == 14);
  CHECK(summary["dim"] == 8);
  CHECK(summary["documents"] == 75);
  CHECK(summary["corpus_words"] == 75 * 7);
  CHECK(summary["words_per_second"].get<double>() > 0);
  const auto lines = lines_of(slurp(out));
  REQUIRE(lines.size() == 15);
  CHECK(lines[0] == "14 8");
  CHECK(lines[1].rfind("the ", 0) == 0);
  CHECK(std::count(lines[1].begin(), lines[1].end(), ' ') == 8);
  CHECK(run(han_cmd("embed -i " + a + " " + b + " -o " + tmp.file("again.txt") + kSmall)).exit_code == 0);
  CHECK(slurp(tmp.file("again.txt")) == slurp(out));
}

TEST_CASE("han embed learns from data.train (labels ignored) and data.unlabeled of a config", "[embed_cli]") {
  TempDir tmp;
  const std::string unlabeled = tmp.write("u.txt", "zyzzyva zyzzyva zyzzyva\nzyzzyva zyzzyva\n");
  const std::string out = tmp.file("v.txt");
  const RunResult r = run(han_cmd("embed --config " + source_path("configs/quickstart.json") + " --set data.unlabeled=" +
                                  unlabeled + " --set embed.epochs=1 --set model.embedding_dim=4 -o " + out));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const json summary = json::parse(r.out);
  CHECK(summary["documents"] == 4000 + 2);
  CHECK(summary["words"].get<int>() > 5000);
  CHECK(slurp(out).find("\nzyzzyva ") != std::string::npos);
}

TEST_CASE("han embed: bad input is one line naming the file or key, exit 2", "[embed_cli]") {
  TempDir tmp;
  const std::string text = tmp.write("t.txt", plain_text(10));
  const std::string out = " -o " + tmp.file("v.txt");
  SECTION("no text") { check_one_line_error(run(han_cmd("embed" + out)), 2, "--input"); }
  SECTION("a missing input") { check_one_line_error(run(han_cmd("embed -i " + tmp.file("nope.txt") + out)), 2, "nope.txt"); }
  SECTION("a folder as input") { check_one_line_error(run(han_cmd("embed -i " + tmp.path.string() + out)), 2, tmp.path.string()); }
  SECTION("an input without words") {
    check_one_line_error(run(han_cmd("embed -i " + tmp.write("e.txt", "\n\n") + out)), 2, "e.txt");
  }
  SECTION("no word frequent enough") {
    check_one_line_error(run(han_cmd("embed -i " + text + out + " --set embed.min_count=1000")), 2, "embed.min_count");
  }
  SECTION("a setting out of range") {
    check_one_line_error(run(han_cmd("embed -i " + text + out + " --set embed.window=0")), 2, "embed.window");
    check_one_line_error(run(han_cmd("embed -i " + text + out + " --set embed.sample=-1")), 2, "embed.sample");
  }
  SECTION("an output folder that does not exist, or a folder as output") {
    check_one_line_error(run(han_cmd("embed -i " + text + " -o " + tmp.file("no/such/v.txt"))), 2, "no/such");
    check_one_line_error(run(han_cmd("embed -i " + text + " -o " + tmp.path.string())), 2, tmp.path.string());
  }
  SECTION("no --output") {
    const RunResult r = run(han_cmd("embed -i " + text));
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--output") != std::string::npos);
  }
  CHECK_FALSE(std::filesystem::exists(tmp.file("v.txt")));
}

TEST_CASE("han train with model.embeddings=pretrain: vectors.txt in the run, its words in the vocabulary",
          "[embed_cli]") {
  TempDir tmp;
  // A word the labelled data never uses: only the pretrained vectors can bring it in.
  const std::string unlabeled = tmp.write("u.txt", plain_text(2) + "zyzzyva rocks zyzzyva\nzyzzyva zyzzyva and zyzzyva\n");
  const std::string dir = tmp.file("run");
  const RunResult r = run(han_cmd(
      "train --config " + source_path("configs/quickstart.json") + " --output " + dir +
      " --set model.embeddings=pretrain --set data.unlabeled=" + unlabeled +
      " --set model.embedding_dim=8 --set model.word_hidden=4 --set model.sentence_hidden=4"
      " --set model.attention_dim=8 --set trainer.epochs=1 --set embed.epochs=1 --set trainer.threads=2"));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string vectors = dir + "/vectors.txt";
  REQUIRE(std::filesystem::exists(vectors));
  CHECK(slurp(vectors).find("\nzyzzyva ") != std::string::npos);
  // "embeddings: N of M vocabulary words found in DIR/vectors.txt"
  std::smatch m;
  REQUIRE(std::regex_search(r.err, m, std::regex("embeddings: (\\d+) of (\\d+) vocabulary words found in (\\S+)")));
  CHECK(std::stoi(m[1].str()) > 1000);
  CHECK(m[3] == vectors);
  CHECK(r.err.find("more from the pretrained vectors") != std::string::npos);
  CHECK(in_vocabulary(dir + "/model.han", "zyzzyva"));
  CHECK(json::parse(slurp(dir + "/config.json"))["model"]["embeddings"] == "pretrain");
}

namespace {

// han train with model.embeddings=pretrain into `out`: the quickstart's config with a tiny
// model, `more` for the rest.
std::string pretrain_args(const std::string& out, const std::string& unlabeled, const std::string& more) {
  return "train --config " + source_path("configs/quickstart.json") + " --output " + out +
         " --set model.embeddings=pretrain --set data.unlabeled=" + unlabeled +
         " --set data.test= --set model.embedding_dim=8 --set model.word_hidden=4 --set model.sentence_hidden=4"
         " --set model.attention_dim=8 " + more;
}

}  // namespace

TEST_CASE("Ctrl-C while train pretrains word vectors: exit 130, nothing written, an old run left as it was",
          "[embed_cli][signals]") {
  const TempDir dir;
  const std::string big = repeated_data(dir, "data/train.jsonl", 4, "big.jsonl");
  const std::string unlabeled = dir.write("u.txt", plain_text(10));
  const std::string out = dir.file("run");
  const std::string args = pretrain_args(out, unlabeled, "--set data.train=" + big + " --set embed.epochs=50");
  const RunResult fresh = run_and_signal(args, "pretraining word vectors", "INT", dir.file("err1"));
  CHECK(fresh.exit_code == 130);
  CHECK(fresh.out.empty());
  CHECK(last_line(fresh.err) == "han: interrupted while pretraining word vectors; nothing was written");
  CHECK_FALSE(fs::exists(out));  // not even the folder it had made

  // With --overwrite, the old run (its vectors.txt too) stays whole until pretraining is done.
  dir.write("run/model.han", "old model");
  dir.write("run/vectors.txt", "1 1\nold 0.5\n");
  const RunResult over = run_and_signal(args + " --overwrite", "embed: 10%", "TERM", dir.file("err2"));
  CHECK(over.exit_code == 143);
  CHECK(last_line(over.err) == "han: interrupted while pretraining word vectors; nothing was written");
  CHECK(slurp(out + "/model.han") == "old model");
  CHECK(slurp(out + "/vectors.txt") == "1 1\nold 0.5\n");
  CHECK_FALSE(fs::exists(out + "/config.json"));
}

TEST_CASE("a pretraining run interrupted in training resumes from its vectors.txt, without pretraining again",
          "[embed_cli][signals][resume]") {
  const TempDir dir;
  const std::string small = head_of_data(dir, "data/train.jsonl", 300, "small.jsonl");
  // A word the labelled data never uses: only the pretrained vectors bring it in.
  const std::string unlabeled = dir.write("u.txt", plain_text(2) + "zyzzyva rocks zyzzyva\nzyzzyva zyzzyva and zyzzyva\n");
  const std::string out = dir.file("run");
  const std::string args = pretrain_args(out, unlabeled, "--set data.train=" + small +
                                                             " --set trainer.epochs=40 --set trainer.patience=0"
                                                             " --set trainer.threads=2 --log-level debug");
  const RunResult stopped = run_and_signal(args, "epoch 1 batch 2/", "INT", dir.file("err"));
  CHECK(stopped.exit_code == 130);
  REQUIRE(fs::exists(out + "/checkpoint.han"));
  const std::string vectors = slurp(out + "/vectors.txt");
  CHECK(vectors.find("\nzyzzyva ") != std::string::npos);

  fs::remove(unlabeled);  // the vectors are read back: the text they came from is not needed
  const RunResult resumed = run(han_cmd("train --resume " + out));
  INFO(resumed.err);
  REQUIRE(resumed.exit_code == 0);
  CHECK(resumed.err.find("pretraining") == std::string::npos);
  CHECK(resumed.err.find("more from the pretrained vectors") != std::string::npos);
  CHECK(slurp(out + "/vectors.txt") == vectors);
  CHECK(in_vocabulary(out + "/model.han", "zyzzyva"));
}

TEST_CASE("vectors.txt is a run file: a folder holding one is refused, --overwrite removes it", "[embed_cli][runs]") {
  const TempDir dir;
  const std::string small = head_of_data(dir, "data/train.jsonl", 300, "small.jsonl");
  const std::string out = dir.file("run");
  dir.write("run/vectors.txt", "1 1\nold 0.5\n");
  const std::string args = "train --config " + source_path("configs/quickstart.json") + " --output " + out +
                           " --set data.train=" + small +
                           " --set data.test= --set trainer.epochs=1 --set model.embedding_dim=8 --quiet";
  const RunResult refused = run(han_cmd(args));
  CHECK(refused.exit_code == 2);
  CHECK(refused.err == "han: error: " + out + " holds a run (vectors.txt); pass --overwrite to replace it\n");
  const RunResult replaced = run(han_cmd(args + " --overwrite"));
  INFO(replaced.err);
  REQUIRE(replaced.exit_code == 0);
  CHECK_FALSE(fs::exists(out + "/vectors.txt"));
}

TEST_CASE("han ablate refuses model.embeddings=pretrain before reading the data, naming han embed", "[embed_cli]") {
  const TempDir dir;
  const RunResult r = run(han_cmd("ablate --config " + source_path("configs/quickstart.json") + " --output " +
                                  dir.file("a") + " --set model.embeddings=pretrain --log-level debug"));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("reading train data") == std::string::npos);
  CHECK(last_line(r.err).find("han: error: model.embeddings: \"pretrain\"") == 0);
  CHECK(r.err.find("han embed") != std::string::npos);
}

TEST_CASE("data.unlabeled resolves like the other data paths: the config's folder, or the working folder for --set",
          "[embed_cli]") {
  const TempDir dir;
  dir.write("cfgs/u.txt", plain_text(10) + "zyzzyva zyzzyva zyzzyva zyzzyva zyzzyva\n");
  dir.write("here/u.txt", plain_text(10) + "quokka quokka quokka quokka quokka\n");
  const std::string config = dir.write("cfgs/c.json", R"({"data": {"unlabeled": "u.txt"}})");
  const std::string small = " --set model.embedding_dim=4 --set embed.epochs=1 -o v.txt";
  const RunResult from_config = run("cd " + dir.file("here") + " && " + han_cmd("embed --config " + config + small));
  INFO(from_config.err);
  REQUIRE(from_config.exit_code == 0);
  CHECK(slurp(dir.file("here/v.txt")).find("\nzyzzyva ") != std::string::npos);
  const RunResult from_set =
      run("cd " + dir.file("here") + " && " + han_cmd("embed --config " + config + " --set data.unlabeled=u.txt" + small));
  INFO(from_set.err);
  REQUIRE(from_set.exit_code == 0);
  CHECK(slurp(dir.file("here/v.txt")).find("\nquokka ") != std::string::npos);
}

TEST_CASE("Ctrl-C while han embed trains: exit 130, one line, no vectors file", "[embed_cli][signals]") {
  const TempDir dir;
  const std::string big = repeated_data(dir, "data/train.jsonl", 4, "big.jsonl");
  const std::string out = dir.file("v.txt");
  const RunResult r = run_and_signal("embed -i " + big + " -o " + out + " --set embed.epochs=50", "embed: ", "INT",
                                     dir.file("err"));
  CHECK(r.exit_code == 130);
  CHECK(r.out.empty());
  CHECK(last_line(r.err) == "han: interrupted; nothing was written");
  CHECK(dir.entries().count("v.txt") == 0);
}
