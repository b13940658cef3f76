// Process exit codes of every forkscope command, the daemon's included.
#pragma once

namespace forkscope::server {

constexpr int kExitOk = 0;
constexpr int kExitViolations = 1;  // a check found violations, a job did not pass, traces diverged
constexpr int kExitError = 2;       // bad input, missing branch, unreachable repository, start-up failure

}  // namespace forkscope::server
