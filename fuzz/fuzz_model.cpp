// libFuzzer target: the model loader. parse_model on arbitrary bytes; when the first
// byte is odd the input's checksums are replaced by the right ones (format 1 and 2: the
// last 8 bytes; format 3: each chunk's and the directory's), so the fuzzer also explores
// files that pass them (hand-made or maliciously crafted ones). A parsed file then goes
// through the classifier-level load (header fields, config, vocabulary, labels, tensor
// shapes) from a temporary file, copied and in place, every in-place part read.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include <xxhash.h>

#include "han/infer/classifier.h"
#include "han/core/error.h"
#include "han/nn/model.h"
#include "han/infer/model_file.h"
#include "scratch_file.h"

namespace {

// Parameters the header's config implies; han_init allocates (and randomly fills) them
// all before the tensors are compared, so a tiny crafted file can ask for gigabytes.
double implied_parameters(const nlohmann::json& header) {
  try {
    const han::Config c = han::config_from_json(header.at("config"), "");
    const nlohmann::json& words = header.at("vocabulary");  // format 2: one string, '\n' between words
    const auto vocab_size = words.is_string()
                                ? std::count(words.get_ref<const std::string&>().begin(),
                                             words.get_ref<const std::string&>().end(), '\n') + 1
                                : static_cast<std::ptrdiff_t>(words.size());
    return han::han_parameter_count(c.model, static_cast<han::Index>(vocab_size),
                                    static_cast<han::Index>(header.at("labels").size()));
  } catch (...) {
    return 0;  // the loader reports it
  }
}

std::uint64_t le(const std::string& b, std::size_t at, int n) {
  std::uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= std::uint64_t(static_cast<unsigned char>(b[at + i])) << (8 * i);
  return v;
}

void put_le(std::string& b, std::size_t at, std::uint64_t v, int n) {
  for (int i = 0; i < n; ++i) b[at + i] = static_cast<char>((v >> (8 * i)) & 0xFF);
}

// Format 3's checksums made right, as far as the directory can be followed.
void reseal_format_3(std::string& b) {
  std::size_t at = 20;
  const auto need = [&](std::uint64_t n) { return n <= b.size() && at <= b.size() - n; };
  if (!need(0) || b.size() < 20) return;
  const std::uint64_t header = le(b, 12, 8);
  if (!need(header + 4)) return;
  at += header;
  const std::uint64_t count = le(b, at, 4);
  at += 4;
  for (std::uint64_t t = 0; t < count; ++t) {
    if (!need(4)) return;
    const std::uint64_t name = le(b, at, 4);
    if (!need(4 + name + 16)) return;
    at += 4 + name + 16;
  }
  if (!need(8)) return;
  const std::uint64_t chunk = le(b, at, 4), chunks = le(b, at + 4, 4);
  const std::size_t sums = at + 8;
  at = sums;
  if (chunks > b.size() / 8 || !need(8 * chunks + 8)) return;
  const std::size_t checksum = sums + 8 * chunks;
  const std::size_t data = (checksum + 8 + 63) / 64 * 64;
  for (std::uint64_t c = 0; chunk > 0 && c < chunks && data + c * chunk < b.size(); ++c) {
    const std::size_t from = data + c * chunk;
    put_le(b, sums + 8 * c, XXH3_64bits(b.data() + from, std::min<std::size_t>(chunk, b.size() - from)), 8);
  }
  put_le(b, checksum, XXH3_64bits(b.data(), checksum), 8);
}

// Reads every part of a classifier that may lie in its file.
void read_everything(const han::Classifier& c) {
  for (const han::HanParams* m : c.members())
    if (!m->embedding.stored.empty()) (void)m->embedding.stored.copy();
  if (c.linear_member()) {
    (void)c.linear.idf_values();
    (void)c.linear.pair_ids();
    for (han::Index f = 0; f < c.linear.features(); ++f) (void)c.linear.weights(f);
  }
  for (std::size_t i = 0; i < c.vocab.size(); ++i) (void)c.vocab.id(c.vocab.word(static_cast<std::int32_t>(i)));
  (void)c.vocab.id("a word that is not there");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::string bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  if ((data[0] & 1) && bytes.size() >= 12) {
    const auto version = static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[8]));
    if (version == 3) {
      reseal_format_3(bytes);
    } else {
      const std::uint64_t h = han::model_checksum(version, bytes.data(), bytes.size() - 8);
      for (int i = 0; i < 8; ++i) bytes[bytes.size() - 8 + i] = static_cast<char>((h >> (8 * i)) & 0xFF);
    }
  }
  han::ModelFileContents contents;
  try {
    contents = han::parse_model(bytes, "fuzz.han");
  } catch (const han::Error& e) {
    if (std::string_view(e.what()).find('\n') != std::string_view::npos) std::abort();
    return 0;
  }
  if (implied_parameters(contents.header) > 4e6) return 0;  // see implied_parameters
  const std::string path = han::fuzz::scratch_file("model", ".han", bytes);
  if (path.empty()) return 0;
  for (const han::Residence residence : {han::Residence::copied, han::Residence::mapped}) {
    try {
      read_everything(han::load_classifier(path, nullptr, nullptr, residence));
    } catch (const han::Error& e) {
      if (std::string_view(e.what()).find('\n') != std::string_view::npos) std::abort();
    }
  }
  return 0;
}
