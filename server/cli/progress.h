// Transfer progress for the CLI: a one-line progress bar on a terminal, log lines otherwise.
#pragma once

#include "analyzer/git/mirror.h"
#include "server/services/analysis_service.h"

namespace forkscope::server {

// Reports to stderr; the returned function is called from the fetching thread only.
analyzer::git::ProgressFn MakeProgressReporter();

// Progress off a terminal: one line per 10% step of each phase (receiving objects, resolving deltas,
// checking out) of each transfer, phases named, never going back (a report of an earlier phase or a
// lower step than one already printed gives no line). Not thread-safe: one transfer's thread.
class ProgressLines {
 public:
  // The log line for p, or "" when it reaches no new step.
  std::string Next(const analyzer::git::TransferProgress& p);

 private:
  std::string url_;
  int phase_ = -1;
  int step_ = -1;
};

// The analysis a one-shot command starts from (drift, carry): creates request.data_dir (default data
// directory when empty), opens its database, reports transfer progress on stderr, runs the analysis
// (answered from the database when the commits were analysed before) and logs its notices.
Result<AnalysisOutcome> AnalyseForCommand(analyzer::AnalyzeRequest& request, const analyzer::Rules& rules);

}  // namespace forkscope::server
