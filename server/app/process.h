// What a forkscope process sets up once, before any thread: the libraries that keep process-wide state.
#pragma once

namespace forkscope::server {

// Initialises libgit2 for the life of the process (before threads start using it).
void InitProcess();

}  // namespace forkscope::server
