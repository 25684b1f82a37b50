#pragma once
// For fuzz targets whose reader takes a path: the input written to a file of this process
// (one per target and process, rewritten for every input, removed when the process exits
// normally: ctest replays the corpora at every run and must not leave files in /tmp).
#include <unistd.h>

#include <cstdio>
#include <set>
#include <string>

namespace han::fuzz {

struct ScratchFiles {
  std::set<std::string> paths;
  ~ScratchFiles() {
    for (const std::string& p : paths) std::remove(p.c_str());
  }
};

// The path of `bytes` written to /tmp/han_fuzz_<name>_<pid><ext>, or "" when it cannot be written.
inline std::string scratch_file(const std::string& name, const std::string& ext, const std::string& bytes) {
  static ScratchFiles files;
  const std::string path = "/tmp/han_fuzz_" + name + "_" + std::to_string(::getpid()) + ext;
  files.paths.insert(path);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return "";
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  return std::fclose(f) == 0 && written ? path : "";
}

}  // namespace han::fuzz
