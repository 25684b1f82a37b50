#pragma once
// FNV-1a, 64 bits: a fast checksum for telling byte streams apart (model files, and the
// config and data the ranks of a distributed run must share). Not cryptographic.
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace han {

class Fnv1a {
 public:
  void add(const void* data, std::size_t n);
  void add(std::string_view text) { add(text.data(), text.size()); }
  // A value with its size: the bytes of an integer or float, in this machine's order.
  template <class T>
  void add_value(const T& value) {
    add(&value, sizeof value);
  }
  std::uint64_t value() const { return h_; }

 private:
  std::uint64_t h_ = 0xcbf29ce484222325ULL;
};

std::uint64_t fnv1a(const void* data, std::size_t n);

}  // namespace han
