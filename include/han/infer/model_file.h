#pragma once
// The model file, little-endian:
//   magic "HANMODEL" (8 bytes) | format version u32 | header length u64 | header JSON
//   | tensor count u32 | per tensor: name length u32, name, rows u32, cols u32, float32 data
//   | checksum of everything before it (u64): XXH3-64 since version 2, FNV-1a 64 in
//   version 1 (still read; ~10x slower to verify).
// The JSON header holds the effective config, vocabulary and labels.
// A truncated, corrupted, foreign or other-version file is refused with one clear
// han::Error (exit 2) naming the file; it never crashes.
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "han/core/types.h"

namespace han {

constexpr std::uint32_t kModelFormatVersion = 2;  // written; 1 and 2 are read

struct NamedTensor {
  std::string name;
  Matrix value;
};

struct ModelFileContents {
  std::uint32_t version = 0;
  nlohmann::json header;
  std::vector<NamedTensor> tensors;
};

// The checksum a file of `version` carries of the bytes before it.
std::uint64_t model_checksum(std::uint32_t version, const char* data, std::size_t n);

std::string serialize_model(const nlohmann::json& header, const std::vector<NamedTensor>& tensors);
ModelFileContents parse_model(const std::string& bytes, const std::string& origin);

// Atomic write (han/core/io.h) of serialize_model().
void save_model_file(const std::string& path, const nlohmann::json& header,
                     const std::vector<NamedTensor>& tensors);
// Reads a regular file front to back straight into the tensors (memory: about the
// model's size); pipes and devices are read whole first.
ModelFileContents load_model_file(const std::string& path);

}  // namespace han
