#pragma once
// Paths the tests need: the source tree (bundled data, configs) and the han binary.
#include <unistd.h>

#include <filesystem>
#include <string>

namespace han::test {

inline std::string source_path(const std::string& relative) {
  return (std::filesystem::path(HAN_SOURCE_DIR) / relative).string();
}

inline std::string han_binary() { return HAN_BINARY; }

// A fresh empty folder under the system temp folder, unique to this process.
inline std::filesystem::path temp_folder(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("han_test_" + std::to_string(::getpid()) + "_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace han::test
