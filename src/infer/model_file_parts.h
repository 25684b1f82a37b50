#pragma once
// What the model file's formats share (infer/model_file.h): little-endian fields, the
// errors that name a file, and the JSON header's checks. Private to src/infer.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "han/core/error.h"

namespace han::model_file_parts {

constexpr char kMagic[8] = {'H', 'A', 'N', 'M', 'O', 'D', 'E', 'L'};
constexpr std::size_t kMagicSize = sizeof kMagic;

void put_u32(std::string& out, std::uint32_t v);
void put_u64(std::string& out, std::uint64_t v);
std::uint64_t get_le(const char* p, int nbytes);

// Byte count of a rows x cols float32 tensor, or false if it exceeds `limit`.
bool tensor_bytes(std::uint32_t rows, std::uint32_t cols, std::size_t limit, std::uint64_t* n);

struct ModelErrors {
  std::string who;
  Error truncated() const { return Error(who + ": model file is truncated"); }
  Error corrupted(const std::string& why) const { return Error(who + ": model file is corrupted (" + why + ")"); }
};

// The header text as a JSON object, or corrupted().
nlohmann::json parse_header(const std::string& text, const ModelErrors& err);

}  // namespace han::model_file_parts
