#include "server/app/process.h"

#include "analyzer/git/global.h"

namespace forkscope::server {

void InitProcess() { analyzer::git::GlobalInit(); }

}  // namespace forkscope::server
