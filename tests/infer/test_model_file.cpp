#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include <xxhash.h>

#include "han/core/error.h"
#include "support/model_bytes.h"
#include "support/paths.h"
#include "han/core/io.h"
#include "han/infer/model_file.h"

using Catch::Contains;
using nlohmann::json;

namespace {

namespace fs = std::filesystem;

using han::test::fnv1a_64;
using han::test::put_checksum;
using han::test::TempDir;

json small_header() {
  return json{{"config", {{"model", {{"mask", "renorm"}}}}},
              {"vocab", {"<pad>", "<unk>", "the", "caf\xc3\xa9"}},
              {"labels", {"neg", "pos"}}};
}

std::vector<han::NamedTensor> small_tensors() {
  han::Matrix a(2, 3);
  a << 1.0f, -2.5f, 3.25f, 0.0f, -0.0f, 1e-30f;
  han::Matrix b(1, 1);
  b << std::numeric_limits<float>::denorm_min();
  han::Matrix empty(0, 4);
  return {{"word.embedding", a}, {"bias", b}, {"empty", empty}};
}

bool same_bits(const han::Matrix& x, const han::Matrix& y) {
  if (x.rows() != y.rows() || x.cols() != y.cols()) return false;
  return x.size() == 0 || std::memcmp(x.data(), y.data(), sizeof(float) * x.size()) == 0;
}

// Little-endian u32 at `pos`.
void poke_u32(std::string& s, std::size_t pos, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) s[pos + i] = static_cast<char>((v >> (8 * i)) & 0xFF);
}

std::uint64_t le(const std::string& s, std::size_t at, int n) {
  std::uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= std::uint64_t(static_cast<unsigned char>(s[at + i])) << (8 * i);
  return v;
}

// Recomputes the trailing checksum (for hand-made files): XXH3-64 of the bytes before it.
void reseal(std::string& s) { put_checksum(s, XXH3_64bits(s.data(), s.size() - 8)); }

}  // namespace

TEST_CASE("format 2's layout: magic, version, header, tensors, checksum, little-endian", "[model_file]") {
  const std::string bytes = han::serialize_model(json::object(), {}, 2);
  REQUIRE(bytes.size() == 8 + 4 + 8 + 2 + 4 + 8);  // header "{}"
  CHECK(bytes.substr(0, 8) == "HANMODEL");
  CHECK(bytes.substr(8, 4) == std::string("\x02\x00\x00\x00", 4));
  CHECK(bytes.substr(12, 8) == std::string("\x02\0\0\0\0\0\0\0", 8));
  CHECK(bytes.substr(20, 2) == "{}");
  CHECK(bytes.substr(22, 4) == std::string(4, '\0'));
  // The trailing checksum is XXH3-64 of everything before it (recomputed independently).
  std::string copy = bytes;
  reseal(copy);
  CHECK(copy == bytes);
}

TEST_CASE("model file round trip is bit-exact", "[model_file]") {
  const json header = small_header();
  const auto tensors = small_tensors();
  const std::string bytes = han::serialize_model(header, tensors);
  const han::ModelFileContents m = han::parse_model(bytes, "m.han");
  CHECK(m.version == han::kModelFormatVersion);
  CHECK(m.header == header);
  REQUIRE(m.tensors.size() == tensors.size());
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    CHECK(m.tensors[i].name == tensors[i].name);
    CHECK(same_bits(m.tensors[i].value, tensors[i].value));
  }
  // -0.0 keeps its sign bit, the denormal survives.
  CHECK(std::signbit(m.tensors[0].value(1, 1)));
  CHECK(m.tensors[1].value(0, 0) == std::numeric_limits<float>::denorm_min());
  // NaN and infinities too.
  han::Matrix special(1, 3);
  special << std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
      -std::numeric_limits<float>::infinity();
  const auto back = han::parse_model(han::serialize_model(json::object(), {{"s", special}}), "x");
  CHECK(same_bits(back.tensors[0].value, special));
  // Serialisation is deterministic.
  CHECK(han::serialize_model(header, tensors) == bytes);
}

TEST_CASE("save and load model files", "[model_file]") {
  TempDir dir;
  const std::string path = (dir.path / "model.han").string();
  han::save_model_file(path, small_header(), small_tensors());
  const auto m = han::load_model_file(path);
  CHECK(m.header == small_header());
  REQUIRE(m.tensors.size() == 3);
  CHECK(same_bits(m.tensors[0].value, small_tensors()[0].value));
  REQUIRE_THROWS_WITH(han::load_model_file((dir.path / "none.han").string()), Contains("no such file"));
}

TEST_CASE("every truncation of a model file is refused", "[model_file]") {
  const std::uint32_t version = GENERATE(2u, 3u);
  INFO("format " << version);
  const std::string bytes = han::serialize_model(small_header(), small_tensors(), version);
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    INFO("length " << n);
    const std::string cut = bytes.substr(0, n);
    REQUIRE_THROWS_AS(han::parse_model(cut, "m.han"), han::Error);
    if (n >= 12) {
      REQUIRE_THROWS_WITH(han::parse_model(cut, "m.han"), Contains("m.han: model file is truncated"));
    }
  }
  // Extra bytes at the end are refused too.
  REQUIRE_THROWS_AS(han::parse_model(bytes + std::string(1, '\0'), "m.han"), han::Error);
  REQUIRE_THROWS_AS(han::parse_model(bytes + bytes, "m.han"), han::Error);
}

TEST_CASE("every single flipped byte is refused", "[model_file]") {
  const std::uint32_t version = GENERATE(2u, 3u);
  INFO("format " << version);
  const std::string bytes = han::serialize_model(small_header(), small_tensors(), version);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    for (unsigned char mask : {0x01, 0x80, 0xFF}) {
      INFO("byte " << i << " mask " << int(mask));
      std::string bad = bytes;
      bad[i] = static_cast<char>(static_cast<unsigned char>(bad[i]) ^ mask);
      REQUIRE_THROWS_AS(han::parse_model(bad, "m.han"), han::Error);
    }
  }
  // A flip in the data region is reported as corruption.
  std::string bad = bytes;
  bad[bytes.size() - 12] ^= 0x10;
  REQUIRE_THROWS_WITH(han::parse_model(bad, "m.han"), Contains("m.han: model file is corrupted (checksum mismatch"));
}

TEST_CASE("foreign files and other versions are refused clearly", "[model_file]") {
  REQUIRE_THROWS_WITH(han::parse_model("", "m.han"), Contains("m.han: not a han model file"));
  REQUIRE_THROWS_WITH(han::parse_model("{\"config\": {}}", "m.han"), Contains("m.han: not a han model file"));
  REQUIRE_THROWS_WITH(han::parse_model(std::string(100, '\0'), "m.han"), Contains("not a han model file"));
  std::string other = han::serialize_model(small_header(), small_tensors());
  other[0] = 'X';
  REQUIRE_THROWS_WITH(han::parse_model(other, "m.han"), Contains("m.han: not a han model file"));

  std::string future = han::serialize_model(small_header(), small_tensors(), 2);
  poke_u32(future, 8, 7);
  reseal(future);
  REQUIRE_THROWS_WITH(han::parse_model(future, "m.han"),
                      Contains("m.han: model format version 7 is not supported (this han reads versions 1 to 3)"));
  // Even without a valid checksum, the version is what gets reported.
  poke_u32(future, 8, 4);
  REQUIRE_THROWS_WITH(han::parse_model(future, "m.han"), Contains("model format version 4 is not supported"));
  poke_u32(future, 8, 0);
  REQUIRE_THROWS_WITH(han::parse_model(future, "m.han"), Contains("model format version 0 is not supported"));
  try {
    han::parse_model(future, "m.han");
  } catch (const han::Error& e) {
    CHECK(e.exit_code() == 2);
  }
}

TEST_CASE("structurally bad files of format 2 with a valid checksum are refused", "[model_file]") {
  // Header that is not a JSON object.
  {
    std::string s = han::serialize_model(json::array({1, 2}), {}, 2);
    REQUIRE_THROWS_WITH(han::parse_model(s, "m.han"), Contains("m.han: model file is corrupted"));
  }
  // Header that is not JSON at all: replace "{}" by "{{" and reseal.
  {
    std::string s = han::serialize_model(json::object(), {}, 2);
    s[21] = '{';
    reseal(s);
    REQUIRE_THROWS_WITH(han::parse_model(s, "m.han"), Contains("corrupted"));
  }
  // Duplicate tensor names.
  {
    han::Matrix m(1, 1);
    m << 1.0f;
    const std::string s = han::serialize_model(json::object(), {{"w", m}, {"w", m}}, 2);
    REQUIRE_THROWS_WITH(han::parse_model(s, "m.han"), Contains("corrupted") && Contains("duplicate"));
  }
  // A huge header length or tensor shape with a recomputed checksum: no huge allocation.
  {
    std::string s = han::serialize_model(json::object(), {}, 2);
    for (int i = 0; i < 8; ++i) s[12 + i] = '\xff';
    reseal(s);
    REQUIRE_THROWS_AS(han::parse_model(s, "m.han"), han::Error);
  }
  {
    han::Matrix m(1, 1);
    m << 1.0f;
    std::string s = han::serialize_model(json::object(), {{"w", m}}, 2);
    const std::size_t rows_at = 8 + 4 + 8 + 2 + 4 + 4 + 1;
    poke_u32(s, rows_at, 0xFFFFFFFFu);
    poke_u32(s, rows_at + 4, 0xFFFFFFFFu);
    reseal(s);
    REQUIRE_THROWS_WITH(han::parse_model(s, "m.han"), Contains("corrupted"));
  }
  {
    std::string s = han::serialize_model(json::object(), {}, 2);
    poke_u32(s, 22, 0xFFFFFFFFu);  // tensor count
    reseal(s);
    REQUIRE_THROWS_WITH(han::parse_model(s, "m.han"), Contains("corrupted"));
  }
}

TEST_CASE("version 1 files (FNV-1a checksum) still load, bit-exact", "[model_file]") {
  std::string v1 = han::serialize_model(small_header(), small_tensors(), 2);
  poke_u32(v1, 8, 1);
  put_checksum(v1, fnv1a_64(v1, v1.size() - 8));
  const han::ModelFileContents m = han::parse_model(v1, "old.han");
  CHECK(m.version == 1);
  CHECK(m.header == small_header());
  REQUIRE(m.tensors.size() == 3);
  CHECK(same_bits(m.tensors[0].value, small_tensors()[0].value));
  // A version 1 file sealed with the new checksum is damaged, not silently accepted.
  reseal(v1);
  REQUIRE_THROWS_WITH(han::parse_model(v1, "old.han"), Contains("corrupted (checksum mismatch)"));
}

TEST_CASE("a model file is read from disk the same as from memory, errors included", "[model_file]") {
  const std::uint32_t version = GENERATE(2u, 3u);
  INFO("format " << version);
  TempDir dir;
  const std::string bytes = han::serialize_model(small_header(), small_tensors(), version);
  const std::string path = (dir.path / "m.han").string();
  auto from_disk = [&](const std::string& content) {
    std::ofstream(path, std::ios::binary) << content;
    return han::load_model_file(path);
  };
  CHECK(from_disk(bytes).header == small_header());
  REQUIRE_THROWS_WITH(from_disk(bytes.substr(0, bytes.size() - 20)), Contains(path + ": model file is truncated"));
  std::string flipped = bytes;
  flipped[bytes.size() - 12] ^= 0x10;
  REQUIRE_THROWS_WITH(from_disk(flipped), Contains(path + ": model file is corrupted (checksum mismatch"));
  REQUIRE_THROWS_WITH(from_disk(bytes + "x"), Contains(path + ": model file is corrupted"));
}

TEST_CASE("format 3 aligns every tensor to 64 bytes and seals its directory and each chunk of its data", "[model_file]") {
  const std::string bytes = han::serialize_model(small_header(), small_tensors());
  CHECK(bytes.substr(8, 4) == std::string("\x03\x00\x00\x00", 4));
  const han::ModelFileContents m = han::parse_model(bytes, "m.han");
  CHECK(m.version == 3);
  // The directory, read here by hand: the header, then name, rows, cols, offset per tensor.
  std::size_t at = 20 + le(bytes, 12, 8);
  REQUIRE(le(bytes, at, 4) == 3);
  at += 4;
  std::vector<std::uint64_t> offsets;
  for (int t = 0; t < 3; ++t) {
    at += 4 + le(bytes, at, 4) + 8;
    offsets.push_back(le(bytes, at, 8));
    at += 8;
  }
  CHECK(offsets[0] % 64 == 0);
  CHECK(offsets[1] % 64 == 0);
  CHECK(offsets[1] >= offsets[0] + 6 * 4);
  CHECK(offsets[2] == 0);  // the empty tensor has no place
  CHECK(std::memcmp(bytes.data() + offsets[0], small_tensors()[0].value.data(), 6 * 4) == 0);
  const std::uint64_t chunk = le(bytes, at, 4), chunks = le(bytes, at + 4, 4);
  CHECK(chunk == 4096);
  REQUIRE(chunks == 1);
  const std::size_t data_start = (at + 8 + 8 * chunks + 8 + 63) / 64 * 64;
  CHECK(le(bytes, at + 8, 8) == XXH3_64bits(bytes.data() + data_start, bytes.size() - data_start));
  CHECK(le(bytes, at + 16, 8) == XXH3_64bits(bytes.data(), at + 16));
  CHECK(offsets[0] == data_start);
  CHECK(bytes.size() == offsets[1] + 4);  // the file ends with the last tensor
}

TEST_CASE("a format 3 file used in place checks each chunk when it is first read", "[model_file]") {
  TempDir dir;
  han::Matrix big(100, 400);  // 160,000 bytes: forty chunks of 4,096
  for (han::Index i = 0; i < big.size(); ++i) big.data()[i] = static_cast<float>(i);
  const std::string path = (dir.path / "m.han").string();
  std::string bytes = han::serialize_model(small_header(), {{"small", small_tensors()[0].value}, {"big", big}});
  std::ofstream(path, std::ios::binary) << bytes;
  const auto big_only = [](const std::string& name) { return name == "big"; };
  {
    const han::ModelFileContents m = han::load_model_file(path, big_only);
    REQUIRE(m.tensors.size() == 2);
    CHECK(m.tensors[0].stored.empty());
    CHECK(same_bits(m.tensors[0].value, small_tensors()[0].value));
    const han::TensorView& v = m.tensors[1].stored;
    REQUIRE_FALSE(v.empty());
    CHECK(m.tensors[1].value.size() == 0);
    CHECK(reinterpret_cast<std::uintptr_t>(v.column(0)) % 64 == 0);
    CHECK(same_bits(v.copy(), big));
  }
  // One flipped bit in the last chunk: the file opens, its first columns read, the last
  // ones are refused; loading it whole is refused at once.
  bytes[bytes.size() - 10] ^= 0x01;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  const han::ModelFileContents m = han::load_model_file(path, big_only);
  const han::TensorView& v = m.tensors[1].stored;
  CHECK(v.column(0)[5] == 5.0f);
  CHECK(v.column(399 - 200)[0] == static_cast<float>(199 * 100));
  REQUIRE_THROWS_WITH(v.column(399), Contains(path + ": model file is corrupted (checksum mismatch in bytes ") && Contains(", tensor big)"));
  REQUIRE_THROWS_WITH(v.copy(), Contains("checksum mismatch"));
  REQUIRE_THROWS_WITH(han::load_model_file(path), Contains(path + ": model file is corrupted (checksum mismatch"));
  REQUIRE_THROWS_WITH(han::parse_model(bytes, "m.han"), Contains("m.han: model file is corrupted (checksum mismatch"));
}

namespace {

// A format 3 file's directory, read by hand (src/infer/model_file_v3.h).
struct Directory3 {
  std::vector<std::size_t> offset_at;  // where each tensor's offset field lies
  std::size_t chunk_at = 0;            // the chunk size field; the count follows, then the sums
  std::size_t checksum_at = 0;
  std::size_t data_start = 0;
};

Directory3 directory_of(const std::string& b) {
  Directory3 d;
  std::size_t at = 20 + le(b, 12, 8);
  const auto count = le(b, at, 4);
  at += 4;
  for (std::uint64_t t = 0; t < count; ++t) {
    at += 4 + le(b, at, 4) + 8;
    d.offset_at.push_back(at);
    at += 8;
  }
  d.chunk_at = at;
  d.checksum_at = at + 8 + 8 * le(b, at + 4, 4);
  d.data_start = (d.checksum_at + 8 + 63) / 64 * 64;
  return d;
}

void poke_u64(std::string& s, std::size_t pos, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) s[pos + i] = static_cast<char>((v >> (8 * i)) & 0xFF);
}

// Seals a hand-edited format 3 directory again (its checksum; the chunks as they are).
void reseal_directory(std::string& b) {
  const Directory3 d = directory_of(b);
  poke_u64(b, d.checksum_at, XXH3_64bits(b.data(), d.checksum_at));
}

}  // namespace

TEST_CASE("structurally bad files of format 3 with a valid checksum are refused", "[model_file]") {
  han::Matrix m(2, 3);
  m << 1, 2, 3, 4, 5, 6;
  // A header of the length that leaves padding between the directory and the data.
  std::string good;
  for (std::size_t k = 0; k < 64; ++k) {
    good = han::serialize_model(json{{"pad", std::string(k, 'x')}}, {{"a", m}, {"b", m}, {"e", han::Matrix(0, 2)}});
    if ((directory_of(good).checksum_at + 8) % 64 != 0) break;
  }
  const Directory3 d = directory_of(good);
  REQUIRE(d.checksum_at + 8 < d.data_start);
  const auto refused = [](std::string s, const std::string& why) {
    reseal_directory(s);
    INFO(why);
    REQUIRE_THROWS_WITH(han::parse_model(s, "m.han"), Contains("m.han: model file is ") && Contains(why));
  };
  std::string s = good;
  poke_u64(s, d.offset_at[2], 64);  // an empty tensor with a place
  refused(s, "empty tensor \"e\" has an offset");
  s = good;
  poke_u64(s, d.offset_at[1], le(good, d.offset_at[1], 8) + 4);  // not aligned
  refused(s, "tensor \"b\" is out of place");
  s = good;
  poke_u64(s, d.offset_at[1], le(good, d.offset_at[0], 8));  // on top of "a"
  refused(s, "tensor \"b\" is out of place");
  s = good;
  poke_u64(s, d.offset_at[1], le(good, d.offset_at[1], 8) + 64);  // past the end
  refused(s, "truncated");
  s = good;
  poke_u32(s, d.chunk_at, 0);
  refused(s, "its chunk table does not cover its data");
  s = good;
  poke_u32(s, d.chunk_at, 16);  // chunks of 16 bytes: more than the table holds
  refused(s, "its chunk table does not cover its data");
  refused(good + std::string(64, '\0'), "unexpected bytes after the last tensor");
  s = good;
  s[d.checksum_at + 8] = 1;  // the padding before the data
  refused(s, "non-zero padding after its directory");
  refused(han::serialize_model(json::object(), {{"w", m}, {"w", m}}), "duplicate tensor \"w\"");
}
