#pragma once
// For fuzz targets whose reader takes a path: the input written to a file of this process
// (one per target and process, rewritten for every input).
#include <unistd.h>

#include <cstdio>
#include <string>

namespace han::fuzz {

// The path of `bytes` written to /tmp/han_fuzz_<name>_<pid><ext>, or "" when it cannot be written.
inline std::string scratch_file(const std::string& name, const std::string& ext, const std::string& bytes) {
  const std::string path = "/tmp/han_fuzz_" + name + "_" + std::to_string(::getpid()) + ext;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return "";
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  return std::fclose(f) == 0 && written ? path : "";
}

}  // namespace han::fuzz
