#include "han/core/malloc_tuning.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

#include <cstdlib>  // defines __GLIBC__ (through <features.h>) on glibc systems
#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace han {

void tune_malloc_for_batches() {
#ifdef __GLIBC__
  mallopt(M_ARENA_MAX, 1);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

void give_back_pages(void* first, std::size_t bytes) {
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = (reinterpret_cast<std::uintptr_t>(first) + page - 1) / page * page;
  const auto end = (reinterpret_cast<std::uintptr_t>(first) + bytes) / page * page;
  if (end > begin) (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

}  // namespace han
