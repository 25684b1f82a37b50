#include "han/core/hash.h"

namespace han {

void Fnv1a::add(const void* data, std::size_t n) {
  const unsigned char* bytes = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < n; ++i) {
    h_ ^= bytes[i];
    h_ *= 0x100000001b3ULL;
  }
}

std::uint64_t fnv1a(const void* data, std::size_t n) {
  Fnv1a h;
  h.add(data, n);
  return h.value();
}

}  // namespace han
