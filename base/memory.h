// Giving memory back to the system after a large piece of work. A sync of a large fork builds the
// analysis, drift and carry of tens of thousands of files on a worker thread; glibc keeps what they
// freed in that thread's malloc arena, so a daemon's RSS would only ever grow by the largest sync each
// worker has run (docs/reliability.md, the soak). Thread-safe.
#pragma once

#include <cstddef>

namespace forkscope::base {

// Returns freed heap memory of every arena to the system (glibc's malloc_trim; a no-op elsewhere).
// Costs a few milliseconds on a large heap: call it after a sync, a carry or a job, not per request.
void ReleaseFreedMemory();

// For a long-running process: at most 4 malloc arenas, and allocations of 256 KiB or more mapped on their
// own (a fixed threshold: glibc otherwise raises it after each large free, and the multi-megabyte analysis
// and JSON buffers of large forks then stay in the arenas, fragmented). Call once, before threads start.
// In the soak (docs/reliability.md) it took the daemon's RSS after 200 s from ~460 MiB to ~200 MiB.
void BoundHeapRetention();

// The malloc heap as glibc counts it (mallinfo2), for /metrics: what live objects hold, what is free but
// kept in the arenas (fragmentation, or memory a trim would return), and what is mapped on its own.
// All zero elsewhere.
struct HeapStats {
  size_t in_use = 0;   // bytes of live allocations in the arenas
  size_t free = 0;     // bytes free but kept in the arenas
  size_t mmapped = 0;  // bytes of allocations mapped on their own (256 KiB and more)
};
HeapStats ReadHeapStats();

}  // namespace forkscope::base
