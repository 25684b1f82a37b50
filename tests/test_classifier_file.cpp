// Classifier files: a single model is written as format version 1, as before ensembles;
// an ensemble as version 2 with every member's tensors; a file whose version and
// trainer.ensemble disagree is refused.
#include <catch2/catch.hpp>

#include <string>

#include "han/core/error.h"
#include "han/core/io.h"
#include "han/infer/classifier.h"
#include "han/infer/model_file.h"
#include "support/paths.h"

using namespace han;
using Catch::Contains;

namespace {

Classifier small_classifier(int members) {
  Config cfg;
  cfg.model.embedding_dim = 6;
  cfg.model.word_hidden = 3;
  cfg.model.sentence_hidden = 2;
  cfg.model.attention_dim = 4;
  cfg.trainer.ensemble = members;
  Rng rng(11);
  Classifier c{cfg, Vocab::from_words({"<pad>", "<unk>", "good", "bad"}), {"neg", "pos"}, han_init(cfg.model, 4, 2, rng), {}};
  for (int k = 1; k < members; ++k) c.more_members.push_back(han_init(cfg.model, 4, 2, rng));
  return c;
}

std::vector<Matrix> tensors_of(const HanParams& p) {
  std::vector<Matrix> out;
  HanParams::fields(p, [&](const std::string&, const Matrix& m) { out.push_back(m); });
  return out;
}

bool same_params(const HanParams& x, const HanParams& y) { return tensors_of(x) == tensors_of(y); }

std::uint32_t version_of(const std::string& path) { return load_model_file(path).version; }

}  // namespace

TEST_CASE("an ensemble file holds every member and reads back exactly, a single model stays version 1",
          "[classifier]") {
  const test::TempDir dir;
  const Classifier one = small_classifier(1), three = small_classifier(3);
  save_classifier(dir.file("one.han"), one);
  save_classifier(dir.file("three.han"), three);
  CHECK(version_of(dir.file("one.han")) == kModelFormatVersion);
  CHECK(version_of(dir.file("three.han")) == kEnsembleFormatVersion);
  CHECK_FALSE(config_to_json(one.config)["trainer"].contains("ensemble"));  // 0.1.0's header, unchanged

  const Classifier got_one = load_classifier(dir.file("one.han"));
  CHECK(got_one.more_members.empty());
  CHECK(same_params(got_one.params, one.params));
  const Classifier got = load_classifier(dir.file("three.han"));
  REQUIRE(got.members().size() == 3);
  CHECK(got.config.trainer.ensemble == 3);
  for (std::size_t k = 0; k < 3; ++k) CHECK(same_params(*got.members()[k], *three.members()[k]));
  CHECK_FALSE(same_params(*got.members()[0], *got.members()[1]));
}

TEST_CASE("a model file whose version disagrees with trainer.ensemble is refused", "[classifier]") {
  const test::TempDir dir;
  const Classifier three = small_classifier(3);
  save_classifier(dir.file("three.han"), three);
  ModelFileContents contents = load_model_file(dir.file("three.han"));
  save_model_file(dir.file("as_v1.han"), contents.header, contents.tensors, kModelFormatVersion);
  CHECK_THROWS_WITH(load_classifier(dir.file("as_v1.han")),
                    Contains("as_v1.han: model file is corrupted (its format version does not match trainer.ensemble)"));
  contents.header["config"]["trainer"]["ensemble"] = 2;  // the third member's tensors are left over
  save_model_file(dir.file("two.han"), contents.header, contents.tensors, kEnsembleFormatVersion);
  CHECK_THROWS_WITH(load_classifier(dir.file("two.han")), Contains("two.han: model file is corrupted (unexpected tensors)"));
}

TEST_CASE("a single model's file has the layout han 0.1.0 wrote: version 1, no member prefixes, the same header",
          "[classifier]") {
  const test::TempDir dir;
  const Classifier one = small_classifier(1);
  const nlohmann::json trained = {{"trained", {{"best_epoch", 2}, {"dev_accuracy", 0.75}}}};
  save_classifier(dir.file("one.han"), one, trained);
  nlohmann::json header = trained;
  header["format"] = "han";
  header["config"] = config_to_json(one.config);
  header["labels"] = one.labels;
  header["vocabulary"] = one.vocab.words();
  std::vector<NamedTensor> tensors;
  HanParams::fields(one.params, [&](const std::string& name, const Matrix& m) { tensors.push_back({name, m}); });
  CHECK(read_file(dir.file("one.han")) == serialize_model(header, tensors, 1));
}
