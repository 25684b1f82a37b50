// libFuzzer target: apply_overrides then config_from_json. Each input line is one
// --set argument (any bytes, invalid UTF-8 included), applied to the default config.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "han/core/config.h"
#include "han/core/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> overrides;
  std::string current;
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == '\n') {
      overrides.push_back(current);
      current.clear();
    } else {
      current.push_back(static_cast<char>(data[i]));
    }
  }
  overrides.push_back(current);
  try {
    nlohmann::json j = han::config_to_json(han::Config{});
    han::apply_overrides(j, overrides);
    han::config_from_json(j, "fuzz.json");
  } catch (const han::Error& e) {
    if (std::string_view(e.what()).find('\n') != std::string_view::npos) std::abort();
  }
  return 0;
}
