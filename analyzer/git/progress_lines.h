// Transfer progress as log lines, for output that is not a terminal: one line per 10% step of each
// phase (receiving objects, resolving deltas, checking out) of each transfer, phases named, never going
// back (a report of an earlier phase, or of a step already printed, gives no line). Not thread-safe:
// one transfer's thread.
#pragma once

#include <string>

#include "analyzer/git/mirror.h"

namespace forkscope::analyzer::git {

class ProgressLines {
 public:
  // The key=value line for p ("fetch url=... phase=\"receiving objects\" progress=40% ..."), or "" when
  // it reaches no new step.
  std::string Next(const TransferProgress& p);

 private:
  std::string url_;
  int phase_ = -1;
  int step_ = -1;
};

}  // namespace forkscope::analyzer::git
