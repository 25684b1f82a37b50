#pragma once
// The model file, little-endian. Format 3 (written) keeps each tensor aligned so a mapped
// file is used in place, and checks its data a chunk at a time as it is read
// (src/infer/model_file_v3.h has the layout). Formats 1 and 2 (still read):
//   magic "HANMODEL" (8 bytes) | format version u32 | header length u64 | header JSON
//   | tensor count u32 | per tensor: name length u32, name, rows u32, cols u32, float32 data
//   | checksum of everything before it (u64): XXH3-64 in version 2, FNV-1a 64 in
//   version 1 (~10x slower to verify).
// The JSON header holds the effective config, vocabulary and labels.
// A truncated, corrupted, foreign or other-version file is refused with one clear
// han::Error (exit 2) naming the file; it never crashes.
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "han/core/tensor_view.h"
#include "han/core/types.h"

namespace han {

constexpr std::uint32_t kModelFormatVersion = 3;  // written; 1 to 3 are read

struct NamedTensor {
  NamedTensor() = default;
  NamedTensor(std::string n, Matrix v) : name(std::move(n)), value(std::move(v)) {}
  std::string name;
  Matrix value;
  // Loaded in place (format 3, load_model_file's `in_place`): the values stay in the
  // mapped file and `value` is empty.
  TensorView stored;
};

// Names the tensors a loader wants left in the mapped file rather than copied.
using KeepInPlace = std::function<bool(const std::string& name)>;

struct ModelFileContents {
  std::uint32_t version = 0;
  nlohmann::json header;
  std::vector<NamedTensor> tensors;
};

// The checksum a file of `version` 1 or 2 carries of the bytes before it.
std::uint64_t model_checksum(std::uint32_t version, const char* data, std::size_t n);

// `version`: 3, or 2 (for tests of older files).
std::string serialize_model(const nlohmann::json& header, const std::vector<NamedTensor>& tensors,
                            std::uint32_t version = kModelFormatVersion);
// Every tensor copied, the whole file checked.
ModelFileContents parse_model(const std::string& bytes, const std::string& origin);

// Atomic write (han/core/io.h) of serialize_model().
void save_model_file(const std::string& path, const nlohmann::json& header,
                     const std::vector<NamedTensor>& tensors);
// Reads a model file. A regular file of format 3 is mapped: the tensors `in_place` names
// stay in it (checked as they are read), the others are copied; with no `in_place`, the
// whole file is checked before this returns. Older formats are read front to back
// straight into the tensors; pipes and devices are read whole first.
ModelFileContents load_model_file(const std::string& path, const KeepInPlace& in_place = {});

}  // namespace han
