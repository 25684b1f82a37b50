// libFuzzer target: config_from_json on any JSON value the parser accepts (nested,
// wrong types, huge numbers), and config_to_json on what it returns.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string_view>

#include "han/core/config.h"
#include "han/core/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto j = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return 0;
  try {
    const han::Config c = han::config_from_json(j, "fuzz.json");
    // What was accepted must serialise and read back the same.
    const nlohmann::json back = han::config_to_json(c);
    if (han::config_to_json(han::config_from_json(back, "")) != back) std::abort();
  } catch (const han::Error& e) {
    if (std::string_view(e.what()).find('\n') != std::string_view::npos) std::abort();
  }
  return 0;
}
