#include "base/memory.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace forkscope::base {

void ReleaseFreedMemory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

}  // namespace forkscope::base
