// A trained classifier through its model file: both formats han has written load the
// same vocabulary and parameters.
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
std::string as_format_1(const std::string& format_2_bytes, const std::vector<std::string>& words) {
  ModelFileContents m = parse_model(format_2_bytes, "m.han");
  m.header["vocabulary"] = words;
  std::string bytes = serialize_model(m.header, m.tensors);
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

}  // namespace

TEST_CASE("a model file of format 2 and one of format 1 (han 0.1.0) load the same classifier", "[model_file]") {
  test::TempDir dir;
  const Classifier c = test::small_model(test::small_config(), 7);
  const std::string path = (dir.path / "model.han").string();
  save_classifier(path, c);
  const std::string bytes = read_file(path);
  CHECK(parse_model(bytes, path).version == 2);
  CHECK(parse_model(bytes, path).header.at("vocabulary").is_string());
  check_same(c, load_classifier(path));

  const std::string old_path = (dir.path / "old.han").string();
  std::ofstream(old_path, std::ios::binary) << as_format_1(bytes, c.vocab.words());
  REQUIRE(parse_model(read_file(old_path), old_path).version == 1);
  check_same(c, load_classifier(old_path));
}
