#pragma once
// Format 3 of the model file (infer/model_file.h), whose tensors are used where they lie:
//   magic "HANMODEL" | version u32 = 3 | header length u64 | header JSON
//   | tensor count u32 | per tensor: name length u32, name, rows u32, cols u32, offset u64
//   | chunk size u32 | chunk count u32 | XXH3-64 of each chunk of the data region
//   | XXH3-64 of every byte before it (the directory's checksum)
//   | zero bytes up to a multiple of 64 | the data region: each tensor's float32 values,
//   column-major, at its offset (a multiple of 64 from the file's start, so a mapped
//   tensor starts aligned), zero bytes between, the file ending with the last tensor.
// The directory is checked when the file is opened; the data region a chunk at a time,
// when a tensor's bytes are first read (core/tensor_view.h).
// The header's "vocabulary" (its words joined by '\n') is stored as three arrays of 4-byte
// values, so a reader can look words up in place (text/vocab.h, Vocab::Stored):
// "vocabulary.text" (the bytes), "vocabulary.offsets" (u32) and "vocabulary.slots" (i32,
// the lookup table). A vocabulary that is not a valid one stays in the header.
#include <memory>
#include <string>
#include <vector>

#include "han/core/mapped_file.h"
#include "han/infer/model_file.h"

namespace han::model_v3 {

constexpr std::uint32_t kVersion = 3;
constexpr std::uint32_t kChunkBytes = 1u << 12;
constexpr std::size_t kAlignment = 64;

// Names of the stored vocabulary's arrays.
inline const std::string kVocabularyText = "vocabulary.text";
inline const std::string kVocabularyOffsets = "vocabulary.offsets";
inline const std::string kVocabularySlots = "vocabulary.slots";

std::string serialize(nlohmann::json header, std::vector<NamedTensor> tensors);

// Parses a format 3 file of `size` bytes at `data` (magic and version already checked).
// With `file` (the mapping `data` lies in), the tensors `in_place` names stay in it as
// views; every other tensor is copied into its Matrix, and when none stays the whole data
// region is checked at once. A stored vocabulary left in place stays as its three arrays;
// copied, it goes back into the header as "vocabulary".
ModelFileContents parse(const char* data, std::size_t size, const std::string& who, const KeepInPlace& in_place,
                        std::shared_ptr<const MappedFile> file);

}  // namespace han::model_v3
