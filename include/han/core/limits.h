#pragma once
// Size limits shared by every reader of text input.
#include <cstddef>
#include <string>

namespace han {

// The most of one input line (or one document file) that is kept: the tokenizer's caps
// would drop the rest anyway, and memory stays bounded on a file with no line breaks.
constexpr std::size_t kMaxLineBytes = std::size_t{16} << 20;

// The message for a line over a limit of whole MiB: "line is longer than 16 MiB".
inline std::string line_too_long(std::size_t max_bytes) {
  return "line is longer than " + std::to_string(max_bytes >> 20) + " MiB";
}

}  // namespace han
