#pragma once
// File helpers shared by every writer and reader: whole-file reads with clear
// errors, and atomic writes (temp file in the same folder, fsync, rename) so a
// crash or kill during a write never leaves a half-written file behind.
#include <string>

namespace han {

// Reads a whole regular file. Missing, unreadable or a directory: han::Error naming it.
std::string read_file(const std::string& path);

// Writes `bytes` to `path` atomically. Failure (unwritable folder, disk full): han::Error
// with exit code 1, naming the path; the previous file, if any, is left untouched.
void write_file_atomically(const std::string& path, const std::string& bytes);

// Throws han::Error naming `path` if it is not an existing readable regular file.
void require_regular_file(const std::string& path);

}  // namespace han
