// Transfer progress for the CLI: a one-line progress bar on a terminal, log lines otherwise.
#pragma once

#include "analyzer/git/mirror.h"

namespace forkscope::server {

// Reports to stderr; the returned function is called from the fetching thread only.
analyzer::git::ProgressFn MakeProgressReporter();

}  // namespace forkscope::server
