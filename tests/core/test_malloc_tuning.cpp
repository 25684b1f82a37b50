// The allocator settings take effect: a batch-sized block comes from the heap, not from
// a fresh mapping that would be unmapped (and page-faulted again) every batch.
// ctest runs each test case in a process of its own: there, without the tuning, glibc's
// threshold is still its initial 128 KiB and the block would be mapped.
#include <catch2/catch.hpp>

#include <cstdlib>

#include "han/core/malloc_tuning.h"

#ifdef __GLIBC__
#include <malloc.h>

TEST_CASE("after tuning, a 24 MiB block is not a separate mapping", "[malloc]") {
  han::tune_malloc_for_batches();
  const std::size_t mapped_before = mallinfo2().hblkhd;
  void* block = std::malloc(24u << 20);  // above glibc's default 128 KiB threshold
  REQUIRE(block != nullptr);
  const std::size_t mapped_during = mallinfo2().hblkhd;
  std::free(block);
  CHECK(mapped_during == mapped_before);
}
#endif
