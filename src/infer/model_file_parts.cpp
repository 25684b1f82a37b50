#include "model_file_parts.h"

#include "han/core/json_text.h"

namespace han::model_file_parts {

void put_u32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

void put_u64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

std::uint64_t get_le(const char* p, int nbytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < nbytes; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

bool tensor_bytes(std::uint32_t rows, std::uint32_t cols, std::size_t limit, std::uint64_t* n) {
  if (rows == 0 || cols == 0) {
    *n = 0;
    return true;
  }
  if (static_cast<std::uint64_t>(rows) > limit / 4 / cols) return false;
  *n = static_cast<std::uint64_t>(rows) * cols * 4;
  return *n <= limit;
}

// A real header nests about four levels (header, config, section, value).
constexpr std::size_t kMaxHeaderDepth = 64;

nlohmann::json parse_header(const std::string& text, const ModelErrors& err) {
  nlohmann::json header = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (header.is_discarded() || !header.is_object()) throw err.corrupted("header is not a JSON object");
  // Callers copy and print parts of the header, which recurses: refuse absurd nesting.
  if (json_nesting_exceeds(header, kMaxHeaderDepth)) throw err.corrupted("header is nested too deeply");
  return header;
}

}  // namespace han::model_file_parts
