// A trained classifier through its model file: every format han has written loads the
// same vocabulary and parameters, copied or used in place.
#include <catch2/catch.hpp>
#include <cstring>
#include <fstream>

#include "han/core/io.h"
#include "han/infer/classifier.h"
#include "han/infer/model_file.h"
#include "support/model_bytes.h"
#include "support/paths.h"
#include "support/small_model.h"

using namespace han;

namespace {

// The same model as han 0.1.0 wrote it: format 1, the vocabulary as a JSON array,
// an FNV-1a 64 checksum (computed here independently of the loader).
std::string as_format_1(const std::string& format_3_bytes, const std::vector<std::string>& words) {
  ModelFileContents m = parse_model(format_3_bytes, "m.han");
  m.header["vocabulary"] = words;
  std::string bytes = serialize_model(m.header, m.tensors, 2);
  bytes[8] = 1;
  test::put_checksum(bytes, test::fnv1a_64(bytes, bytes.size() - 8));
  return bytes;
}

void check_same(const Classifier& a, const Classifier& b) {
  CHECK(a.vocab.words() == b.vocab.words());
  CHECK(a.labels == b.labels);
  for (const std::string& w : a.vocab.words()) CHECK(b.vocab.id(w) == a.vocab.id(w));
  CHECK(b.vocab.id("unseen") == Vocab::kUnk);
  std::vector<const Matrix*> mine;
  HanParams::fields(a.params, [&](const std::string&, const Matrix& m) { mine.push_back(&m); });
  std::size_t i = 0;
  HanParams::fields(b.params, [&](const std::string& name, const Matrix& m) {
    INFO(name);
    REQUIRE(m.size() == mine[i]->size());
    if (m.size() == 0) {  // bag.W without model.bag: no data pointer to compare
      ++i;
      return;
    }
    CHECK(std::memcmp(m.data(), mine[i]->data(), sizeof(Scalar) * static_cast<std::size_t>(m.size())) == 0);
    ++i;
  });
}

// b used in place: its embedding table and linear member read from the file, the rest
// copied; every value as a's.
void check_same_in_place(const Classifier& a, const Classifier& b) {
  // The vocabulary: looked up in the file's own table.
  REQUIRE(b.vocab.size() == a.vocab.size());
  CHECK(b.vocab.words() == a.vocab.words());
  for (const std::string& w : a.vocab.words()) CHECK(b.vocab.id(w) == a.vocab.id(w));
  CHECK(b.vocab.id("unseen") == Vocab::kUnk);
  CHECK(b.vocab.id("") == Vocab::kUnk);
  REQUIRE_FALSE(b.params.embedding.stored.empty());
  CHECK(b.params.embedding.table.size() == 0);
  REQUIRE(b.params.embedding.words() == a.params.embedding.table.cols());
  CHECK(read_view(b.params.embedding.table, b.params.embedding.stored) == a.params.embedding.table);
  CHECK(b.params.word_gru.fwd.W == a.params.word_gru.fwd.W);
  CHECK(b.params.output.W == a.params.output.W);
  REQUIRE(b.linear_member());
  CHECK(b.linear.W.size() == 0);
  CHECK(read_view(b.linear.W, b.linear.W_stored) == a.linear.W);
  CHECK(b.linear.idf_values() == a.linear.idf);
  CHECK(b.linear.pair_ids() == a.linear.pairs);
  CHECK(b.linear.b == a.linear.b);
  for (Index f = 0; f < a.linear.W.cols(); f += 7) CHECK(b.linear.weights(f) == a.linear.W.col(f));
}

}  // namespace

TEST_CASE("a model file of format 3, 2 or 1 (han 0.1.0) loads the same classifier, copied or in place", "[model_file]") {
  test::TempDir dir;
  const Classifier c = test::small_model(test::small_config(), 7);
  const std::string path = (dir.path / "model.han").string();
  save_classifier(path, c);
  const std::string bytes = read_file(path);
  CHECK(parse_model(bytes, path).version == 3);
  CHECK(parse_model(bytes, path).header.at("vocabulary").is_string());
  check_same(c, load_classifier(path));

  const std::string v2_path = (dir.path / "v2.han").string();
  const ModelFileContents contents = parse_model(bytes, path);
  std::ofstream(v2_path, std::ios::binary) << serialize_model(contents.header, contents.tensors, 2);
  REQUIRE(parse_model(read_file(v2_path), v2_path).version == 2);
  check_same(c, load_classifier(v2_path));
  // In place needs format 3: an older file is copied whole.
  CHECK(load_classifier(v2_path, nullptr, nullptr, Residence::mapped).params.embedding.stored.empty());

  const std::string old_path = (dir.path / "old.han").string();
  std::ofstream(old_path, std::ios::binary) << as_format_1(bytes, c.vocab.words());
  REQUIRE(parse_model(read_file(old_path), old_path).version == 1);
  check_same(c, load_classifier(old_path));
}

TEST_CASE("a model used in place answers with the values it was saved with, its linear member too", "[model_file]") {
  test::TempDir dir;
  Config cfg = test::small_config();
  cfg.model.linear_member = true;
  cfg.model.linear_weight = 0.5;
  Classifier c = test::small_model(cfg, 7);
  // Its linear member: 6 words and the pairs (good, film) and (bad, film).
  c.linear.pairs = Matrix(2, 2);
  c.linear.pairs << 2, 3, 5, 5;
  c.linear.W = Matrix::Random(2, 8);
  c.linear.b = Matrix::Random(2, 1);
  c.linear.idf = Matrix::Random(8, 1);
  REQUIRE(c.linear_member());
  const std::string path = (dir.path / "model.han").string();
  save_classifier(path, c);
  check_same_in_place(c, load_classifier(path, nullptr, nullptr, Residence::mapped));
  // The vocabulary lies in the file as its three arrays, not in the header.
  const ModelFileContents in_place = load_model_file(path, [](const std::string&) { return true; });
  CHECK_FALSE(in_place.header.contains("vocabulary"));
  int arrays = 0;
  for (const NamedTensor& t : in_place.tensors)
    if (t.name.rfind("vocabulary.", 0) == 0) arrays += t.stored.empty() ? 0 : 1;
  CHECK(arrays == 3);
  // Copied, it is back in the header.
  CHECK(load_model_file(path).header.at("vocabulary") == c.vocab.joined());
}
