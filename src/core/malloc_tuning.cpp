#include "han/core/malloc_tuning.h"

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

}  // namespace han
