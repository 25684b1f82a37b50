#pragma once
// Allocator settings for han's workload, called once at program start.

#include <cstddef>

namespace han {

// Every batch allocates large short-lived matrices whose sizes change from batch to batch.
// With glibc's defaults each worker thread's arena gives freed memory back to the kernel
// and blocks above a moving threshold get mappings of their own, so every batch
// page-faults its buffers in again, and two threads faulting at once contend in the
// kernel. So: one arena for all threads (few, large allocations: little lock traffic),
// mappings only for blocks above glibc's 32 MiB maximum threshold (a 100 MB input line
// still maps and unmaps instead of fragmenting the heap), and freed heap memory kept for
// the next batch: far fewer page faults and faster training, with no higher peak RSS
// (README, Performance). A no-op on other C libraries.
void tune_malloc_for_batches();

// Gives the whole pages inside [first, first + bytes) back to the kernel while their
// allocation lives on: for a large array read once front to back and then freed, whose
// consumed part would otherwise stay resident until the end. The bytes must not be read
// again (they read as zeros); writing them, or freeing the allocation, is fine.
void give_back_pages(void* first, std::size_t bytes);

}  // namespace han
