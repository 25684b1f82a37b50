// libFuzzer target: the model loader. parse_model on arbitrary bytes; when the first
// byte is odd the input's last 8 bytes are replaced by the right checksum, so the
// fuzzer also explores files that pass it (hand-made or maliciously crafted ones).
// A parsed file then goes through the classifier-level load (header fields, config,
// vocabulary, labels, tensor shapes) from a temporary file.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::string bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  if ((data[0] & 1) && bytes.size() >= 12) {
    const auto version = static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[8]));  // 1 or 2 in practice
    const std::uint64_t h = han::model_checksum(version, bytes.data(), bytes.size() - 8);
    for (int i = 0; i < 8; ++i) bytes[bytes.size() - 8 + i] = static_cast<char>((h >> (8 * i)) & 0xFF);
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
  try {
    han::load_classifier(path);
  } catch (const han::Error& e) {
    if (std::string_view(e.what()).find('\n') != std::string_view::npos) std::abort();
  }
  return 0;
}
