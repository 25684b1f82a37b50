// Classifier files: a single model's tensors carry their plain names, an ensemble's every
// member's tensors under "member<k>."; a file whose tensors and trainer.ensemble disagree,
// or an ensemble in a format 1 file (ensembles came with format 2), is refused.
#include <catch2/catch.hpp>

#include <algorithm>
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
  cfg.model.linear_member = false;  // HAN members only (with a member: test_linear_member.cpp)
  Rng rng(11);
  Classifier c{cfg, Vocab::from_words({"<pad>", "<unk>", "good", "bad"}), {"neg", "pos"}, han_init(cfg.model, 4, 2, rng), {},
                OutputHead{}};
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

TEST_CASE("an ensemble file holds every member and reads back exactly",
          "[classifier]") {
  const test::TempDir dir;
  const Classifier one = small_classifier(1), three = small_classifier(3);
  save_classifier(dir.file("one.han"), one);
  save_classifier(dir.file("three.han"), three);
  CHECK(version_of(dir.file("one.han")) == kModelFormatVersion);
  CHECK(version_of(dir.file("three.han")) == kModelFormatVersion);
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

TEST_CASE("an ensemble in a format 1 file, or with tensors its header does not name, is refused", "[classifier]") {
  const test::TempDir dir;
  const Classifier three = small_classifier(3);
  save_classifier(dir.file("three.han"), three);
  const ModelFileContents saved = load_model_file(dir.file("three.han"));
  std::string v1 = serialize_model(saved.header, saved.tensors, 2);
  v1[8] = 1;  // format 1, resealed with format 1's checksum
  const std::uint64_t h = model_checksum(1, v1.data(), v1.size() - 8);
  for (int i = 0; i < 8; ++i) v1[v1.size() - 8 + i] = static_cast<char>((h >> (8 * i)) & 0xFF);
  write_file_atomically(dir.file("as_v1.han"), v1);
  CHECK_THROWS_WITH(load_classifier(dir.file("as_v1.han")),
                    Contains("as_v1.han: model file is corrupted (an ensemble in a format 1 file)"));
  ModelFileContents contents = load_model_file(dir.file("three.han"));
  contents.header["config"]["trainer"]["ensemble"] = 2;  // the third member's tensors are left over
  save_model_file(dir.file("two.han"), contents.header, contents.tensors);
  CHECK_THROWS_WITH(load_classifier(dir.file("two.han")), Contains("two.han: model file is corrupted (unexpected tensors)"));
}

TEST_CASE("a single model's file names its tensors as before ensembles, without member prefixes", "[classifier]") {
  const test::TempDir dir;
  const Classifier one = small_classifier(1);
  save_classifier(dir.file("one.han"), one);
  std::vector<std::string> expected;
  HanParams::fields(one.params, [&](const std::string& name, const Matrix& m) {
    if (m.size() != 0) expected.push_back(name);  // without model.bag, bag.W is (C, 0) and not stored
  });
  CHECK(std::count(expected.begin(), expected.end(), "bag.W") == 0);
  std::vector<std::string> stored;
  for (const NamedTensor& t : load_model_file(dir.file("one.han")).tensors) stored.push_back(t.name);
  CHECK(stored == expected);
  CHECK_FALSE(load_model_file(dir.file("one.han")).header["config"]["trainer"].contains("ensemble"));
}

TEST_CASE("a model with the bag-of-words term stores bag.W, reads it back exactly and counts it", "[classifier]") {
  const test::TempDir dir;
  Classifier c = small_classifier(2);
  c.config.model.bag = Bag::words;
  Rng rng(5);
  c.params = han_init(c.config.model, 4, 2, rng);
  c.more_members = {han_init(c.config.model, 4, 2, rng)};
  for (HanParams* m : {&c.params, &c.more_members[0]}) m->bag.W.setRandom();
  save_classifier(dir.file("bag.han"), c);
  std::vector<std::string> stored;
  for (const NamedTensor& t : load_model_file(dir.file("bag.han")).tensors) stored.push_back(t.name);
  CHECK(std::count(stored.begin(), stored.end(), "member1.bag.W") == 1);
  CHECK(std::count(stored.begin(), stored.end(), "member2.bag.W") == 1);
  const Classifier got = load_classifier(dir.file("bag.han"));
  CHECK(got.config.model.bag == Bag::words);
  CHECK(got.params.bag.W.rows() == 2);
  CHECK(got.params.bag.W.cols() == 4);
  CHECK(same_params(got.params, c.params));
  CHECK(same_params(got.more_members[0], c.more_members[0]));
  // A file whose config says bag words but lacks the tensor is refused, naming it.
  ModelFileContents contents = load_model_file(dir.file("bag.han"));
  contents.tensors.erase(std::remove_if(contents.tensors.begin(), contents.tensors.end(),
                                        [](const NamedTensor& t) { return t.name == "member2.bag.W"; }),
                         contents.tensors.end());
  save_model_file(dir.file("no_bag.han"), contents.header, contents.tensors);
  CHECK_THROWS_WITH(load_classifier(dir.file("no_bag.han")), Contains("no_bag.han: model file is corrupted"));
}
