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

}  // namespace forkscope::base
