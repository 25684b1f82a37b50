// model.embeddings = "pretrain" inside training: the vocabulary rule, the run folder's
// vectors.txt, and resuming from it.
#include <catch2/catch.hpp>

#include <filesystem>

#include "han/core/error.h"
#include "han/embed/word_vectors.h"
#include "han/nn/parameters.h"
#include "han/text/corpus.h"
#include "han/train/pretraining.h"
#include "han/train/run_folder.h"
#include "han/train/trainer.h"
#include "support/bundled.h"
#include "support/paths.h"
#include "support/run.h"

using namespace han;
using Catch::Matchers::Contains;
using han::test::TempDir;

TEST_CASE("vocabulary: training words first, then words with a pretrained vector, up to max_vocab", "[embed]") {
  TempDir tmp;
  Config cfg;
  cfg.data.train = tmp.write("t.jsonl",
                             "{\"label\": \"x\", \"text\": \"a a a b b c\"}\n{\"label\": \"y\", \"text\": \"a b\"}\n");
  cfg.tokenizer.min_count = 2;
  cfg.tokenizer.max_vocab = 6;
  CHECK(load_corpus(cfg).vocab.words() == std::vector<std::string>{"<pad>", "<unk>", "a", "b"});
  const std::vector<std::string> vector_words = {"b", "zeta", "<unk>", "c", "eta"};
  CHECK(load_corpus(cfg, vector_words).vocab.words() ==
        std::vector<std::string>{"<pad>", "<unk>", "a", "b", "zeta", "c"});
  cfg.tokenizer.max_vocab = 3;  // the training words keep their places
  CHECK(load_corpus(cfg, vector_words).vocab.words() == std::vector<std::string>{"<pad>", "<unk>", "a"});
}

TEST_CASE("a pretrain run resumes from its vectors.txt to the uninterrupted model", "[embed][resume]") {
  TempDir tmp;
  Config cfg = han::test::bundled_config(8, 2);
  cfg.model.embeddings = kPretrainEmbeddings;
  cfg.data.unlabeled = tmp.write("u.txt", "zyzzyva rocks zyzzyva\nzyzzyva zyzzyva and zyzzyva\n");
  cfg.embed.epochs = 1;
  cfg.batching.batch_size = 32;
  cfg.trainer.threads = 1;  // one thread: the skip-gram vectors, too, are the same in both runs
  auto corpus_of = [](const PreparedRun& run, const WordVectors* pretrained) {
    Corpus c = load_training_corpus(run, pretrained);
    c.train.truncate(300);
    c.dev.truncate(50);
    return c;
  };
  // As han train starts a run: pretraining, the corpus, then the folder's files.
  auto start_run = [&](const std::string& folder, Corpus& corpus) {
    const PreparedRun run = plan_run(cfg, folder, false);
    const WordVectors pretrained = pretrain_vectors(run.config);
    corpus = corpus_of(run, &pretrained);
    begin_run(run);
    save_word_vectors(run.files.vectors, pretrained);
    return run;
  };
  Corpus straight_corpus;
  const PreparedRun straight_run = start_run(tmp.file("straight"), straight_corpus);
  CHECK(straight_corpus.vocab.id("zyzzyva") != Vocab::kUnk);
  TrainOptions options;
  options.output_dir = straight_run.files.folder;
  TrainResult straight = train_model(straight_run.config, straight_corpus, options);

  Corpus first_corpus;
  const PreparedRun first_run = start_run(tmp.file("stopped"), first_corpus);
  options.output_dir = first_run.files.folder;
  int steps = 0;
  options.stop_requested = [&] { return ++steps > 12; };  // inside epoch 2 (10 batches per epoch)
  REQUIRE(train_model(first_run.config, first_corpus, options).interrupted);
  CHECK(test::slurp(first_run.files.vectors) == test::slurp(straight_run.files.vectors));

  // Resuming reads vectors.txt back: it no longer needs the unlabelled text.
  std::filesystem::remove(cfg.data.unlabeled);
  const PreparedRun resumed_run = reopen_run(first_run.files.folder);
  options.stop_requested = nullptr;
  options.resume = true;
  TrainResult resumed = train_model(resumed_run.config, corpus_of(resumed_run, nullptr), options);
  REQUIRE_FALSE(resumed.interrupted);
  for (const ParamRef& r : zip_params(resumed.last_params, straight.last_params)) {
    INFO(r.name);
    CHECK(r.value->cwiseEqual(*r.grad).all());
  }
}

TEST_CASE("pretrain needs a run folder: train_model without one says so", "[embed]") {
  Config cfg = han::test::bundled_config(4, 1);
  const Corpus corpus = load_corpus(cfg);
  cfg.model.embeddings = kPretrainEmbeddings;
  REQUIRE_THROWS_WITH(train_model(cfg, corpus), Contains("model.embeddings") && Contains("han embed"));
}

TEST_CASE("config: \"pretrain\" is a keyword, not a path, data.unlabeled is a path, embed.* are checked", "[embed][config]") {
  TempDir tmp;
  const std::string file = tmp.write(
      "cfgs/c.json", R"({"data": {"unlabeled": "u.txt"}, "model": {"embeddings": "pretrain"}, "embed": {"window": 3, "sample": 0}})");
  const Config c = load_config_file(file);
  CHECK(pretrains_embeddings(c.model));
  CHECK(c.model.embeddings == "pretrain");
  CHECK(c.data.unlabeled == (tmp.path / "cfgs" / "u.txt").string());
  CHECK(c.embed.window == 3);
  CHECK(c.embed.sample == 0);
  CHECK(c.embed.negative == 5);
  CHECK(config_from_json(config_to_json(c), "").model.embeddings == "pretrain");
  const std::string empty = tmp.write("cfgs/e.json", "{}");
  CHECK(load_config_file(empty, {"model.embeddings=pretrain"}).model.embeddings == "pretrain");
  // A vectors file named "pretrain" is still a path when written as one.
  CHECK(load_config_file(empty, {"model.embeddings=./pretrain"}).model.embeddings ==
        (std::filesystem::current_path() / "pretrain").string());
  REQUIRE_THROWS_WITH(load_config_file(empty, {"embed.window=0"}), Contains("embed.window"));
  REQUIRE_THROWS_WITH(load_config_file(tmp.write("cfgs/x.json", R"({"embed": {"dim": 3}})")),
                      Contains("unknown key \"embed.dim\""));
  const PreparedRun run = plan_run(c, tmp.file("run"), false);
  CHECK(run.config.model.embeddings == "pretrain");
  CHECK(run.config.data.unlabeled == c.data.unlabeled);
  CHECK(run.files.vectors == (tmp.path / "run" / "vectors.txt").string());
}
