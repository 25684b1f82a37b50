// libFuzzer target: the token-cache reader (data.cache). read_token_cache on arbitrary
// bytes written to a file; when the first byte is odd the input's last 8 bytes are
// replaced by the right XXH3-64, so the fuzzer explores files that pass the checksum (a
// crafted cache). The fingerprint asked for is the one the header states, so a parsed
// header reaches the arrays. A corpus that loads is then walked document by document:
// every view must stay inside the mapping (ASan) and every word id inside the vocabulary.
#include <xxhash.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>
#include <string>
#include <string_view>

#include "han/core/error.h"
#include "han/text/token_cache.h"
#include "scratch_file.h"

namespace {

constexpr std::size_t kPreamble = han::kTokenCacheHeaderStart;

std::uint64_t stated_fingerprint(const std::string& bytes) {
  if (bytes.size() < kPreamble) return 0;
  std::uint64_t header_bytes = 0;
  std::memcpy(&header_bytes, bytes.data() + kPreamble - 8, 8);
  if (header_bytes > bytes.size() - kPreamble) return 0;
  const auto j = nlohmann::json::parse(bytes.begin() + kPreamble, bytes.begin() + kPreamble + static_cast<long>(header_bytes),
                                       nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("fingerprint") || !j["fingerprint"].is_number_unsigned()) return 0;
  return j["fingerprint"].get<std::uint64_t>();
}

void walk(const han::Documents& docs, std::size_t vocab_size) {
  for (std::size_t i = 0; i < docs.size(); ++i)
    for (const auto& sentence : docs[i].sentences) {
      if (sentence.empty()) std::abort();
      for (const std::int32_t id : sentence)
        if (id < 0 || static_cast<std::size_t>(id) >= vocab_size) std::abort();
    }
  for (std::size_t i = 0; i < docs.size(); ++i)  // every unknown word readable
    for (std::size_t k = 0; k < docs[i].unknown.size(); ++k)
      if (docs[i].unknown[k].size() > (std::size_t{1} << 30)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const bool quiet = (spdlog::set_level(spdlog::level::off), true);  // rebuild warnings are expected
  (void)quiet;
  if (size == 0) return 0;
  std::string bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  if ((data[0] & 1) && bytes.size() >= 8) {
    const std::uint64_t h = XXH3_64bits(bytes.data(), bytes.size() - 8);
    std::memcpy(bytes.data() + bytes.size() - 8, &h, 8);
  }
  const std::string path = han::fuzz::scratch_file("token_cache", ".cache", bytes);
  if (path.empty()) return 0;
  try {
    // The second bit: whether the documents must keep their unknown words.
    const auto corpus = han::read_token_cache(path, stated_fingerprint(bytes), (data[0] & 2) != 0);
    if (corpus)
      for (const han::Documents* docs : {&corpus->train, &corpus->dev, &corpus->test}) walk(*docs, corpus->vocab.size());
  } catch (const han::Error& e) {
    if (std::string_view(e.what()).find('\n') != std::string_view::npos) std::abort();
  }
  return 0;
}
