#include "base/memory.h"

#include <cstddef>  // defines __GLIBC__ on glibc (through <features.h>), so the checks below see it

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace forkscope::base {

void ReleaseFreedMemory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

void BoundHeapRetention() {
#if defined(__GLIBC__)
  mallopt(M_ARENA_MAX, 4);
  mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif
}

HeapStats ReadHeapStats() {
  HeapStats stats;
#if defined(__GLIBC__)
  const struct mallinfo2 info = mallinfo2();
  stats.in_use = info.uordblks;
  stats.free = info.fordblks;
  stats.mmapped = info.hblkhd;
#endif
  return stats;
}

}  // namespace forkscope::base
