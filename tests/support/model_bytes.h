#pragma once
// Hand-made model files: the trailing checksum of format 1 (FNV-1a 64), computed here
// independently of the loader, and written into a file's last 8 bytes.
#include <cstddef>
#include <cstdint>
#include <string>

namespace han::test {

// FNV-1a 64 of the first n bytes of s.
inline std::uint64_t fnv1a_64(const std::string& s, std::size_t n) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (std::size_t i = 0; i < n; ++i) {
    h ^= static_cast<unsigned char>(s[i]);
    h *= 0x100000001b3ULL;
  }
  return h;
}

// Overwrites the last 8 bytes with h, little-endian.
inline void put_checksum(std::string& s, std::uint64_t h) {
  for (int i = 0; i < 8; ++i) s[s.size() - 8 + i] = static_cast<char>((h >> (8 * i)) & 0xFF);
}

}  // namespace han::test
