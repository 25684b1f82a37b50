#pragma once
// Paths the tests need: the source tree (bundled data, configs) and the han binary.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
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

// A fresh folder under the system temp folder, removed at scope exit.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    static int counter = 0;
    path = std::filesystem::temp_directory_path() /
           ("han_test_" + std::to_string(::getpid()) + "_tmp" + std::to_string(counter++));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return (path / name).string(); }
  // Writes text to name (creating folders); returns its path.
  std::string write(const std::string& name, const std::string& text) const {
    const std::filesystem::path p = path / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
  // The names in the folder, sorted.
  std::set<std::string> entries() const {
    std::set<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(path)) out.insert(e.path().filename().string());
    return out;
  }
};

}  // namespace han::test
