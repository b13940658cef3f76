// Process-wide libgit2 set-up: the one libgit2 call code outside analyzer/git/ needs.
#pragma once

namespace forkscope::analyzer::git {

// Keeps libgit2 initialised for the life of the process (call once from main or a test).
void GlobalInit();

}  // namespace forkscope::analyzer::git
