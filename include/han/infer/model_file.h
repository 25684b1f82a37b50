#pragma once
// The model file, little-endian:
//   magic "HANMODEL" (8 bytes) | format version u32 | header length u64 | header JSON
//   | tensor count u32 | per tensor: name length u32, name, rows u32, cols u32, float32 data
//   | FNV-1a 64-bit checksum of everything before it (u64).
// The JSON header holds the effective config, vocabulary and labels. Version 1 holds one
// model; version 2 an ensemble (its members' tensors named "member<k>.", see classifier.h),
// so a han that predates ensembles refuses it by its version instead of misreading it.
// A truncated, corrupted, foreign or other-version file is refused with one clear
// han::Error (exit 2) naming the file; it never crashes.
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "han/core/types.h"

namespace han {

constexpr std::uint32_t kModelFormatVersion = 1;     // one model
constexpr std::uint32_t kEnsembleFormatVersion = 2;  // an ensemble of models (the newest version read)

struct NamedTensor {
  std::string name;
  Matrix value;
};

struct ModelFileContents {
  std::uint32_t version = 0;
  nlohmann::json header;
  std::vector<NamedTensor> tensors;
};

// The file's checksum: FNV-1a 64 of the bytes before it.
std::uint64_t model_checksum(const char* data, std::size_t n);

std::string serialize_model(const nlohmann::json& header, const std::vector<NamedTensor>& tensors,
                            std::uint32_t version = kModelFormatVersion);
ModelFileContents parse_model(const std::string& bytes, const std::string& origin);

// Atomic write (han/core/io.h) of serialize_model().
void save_model_file(const std::string& path, const nlohmann::json& header,
                     const std::vector<NamedTensor>& tensors, std::uint32_t version = kModelFormatVersion);
ModelFileContents load_model_file(const std::string& path);

}  // namespace han
