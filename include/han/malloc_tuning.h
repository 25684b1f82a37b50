#pragma once
// Allocator settings for han's workload, called once at program start.

namespace han {

// Every batch allocates large short-lived matrices. By default glibc maps and unmaps each
// one, paying fresh page faults every batch (~10 % of prediction time under perf); this
// keeps blocks up to glibc's 32 MiB maximum in the heap, and keeps up to 64 MiB of freed
// memory for the next batch (never returning any cost ~15 % more peak RSS in training).
// A no-op on other C libraries.
void tune_malloc_for_batches();

}  // namespace han
