#pragma once
// File helpers shared by every writer and reader: whole-file reads with clear
// errors, and atomic writes (temp file in the same folder, fsync, rename) so a
// crash or kill during a write never leaves a half-written file behind.
#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace han {

// Reads a whole file. Missing, unreadable or a directory: han::Error naming it.
// Devices and pipes are read too (e.g. /dev/stdin), up to kMaxStreamBytes, so that
// /dev/zero or `yes |` cannot grow memory without end.
std::string read_file(const std::string& path);

// Opens `path` for binary reading, with read_file's one-line errors for a missing file,
// a folder or no permission. The caller closes it.
std::FILE* open_for_reading(const std::string& path);

constexpr std::size_t kMaxStreamBytes = std::size_t{1} << 30;

struct ReadOptions {
  // At most this many bytes; beyond it: han::Error naming the path, or, with truncate,
  // the first max_bytes and *truncated = true.
  std::size_t max_bytes = static_cast<std::size_t>(-1);
  bool truncate = false;
  bool* truncated = nullptr;
  // When set, reading stops as soon as the first bytes differ from this prefix (a model
  // file's magic), so a foreign stream such as /dev/zero is refused at once; the bytes
  // read so far are returned for the caller to judge.
  std::string_view expected_prefix;
};
std::string read_file(const std::string& path, const ReadOptions& options);

// Writes `bytes` to `path` atomically. Failure (unwritable folder, disk full): han::Error
// with exit code 1, naming the path; the previous file, if any, is left untouched.
void write_file_atomically(const std::string& path, const std::string& bytes);
// The same with the bytes given in parts, written one after another (large arrays are
// written from where they lie, never copied into one string).
void write_file_atomically(const std::string& path, const std::vector<std::string_view>& parts);

// Throws han::Error naming `path` if it is not an existing readable regular file.
void require_regular_file(const std::string& path);

}  // namespace han
