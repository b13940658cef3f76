// Transfer progress for the CLI: a one-line progress bar on a terminal, log lines otherwise
// (analyzer/model/transfer.h: one per 10% per phase).
#pragma once

#include "analyzer/model/transfer.h"
#include "server/services/analysis_service.h"

namespace forkscope::server {

// Reports to stderr; the returned function is called from the fetching thread only.
analyzer::ProgressFn MakeProgressReporter();

// The analysis a one-shot command starts from (drift, carry): creates request.data_dir (default data
// directory when empty), opens its database, reports transfer progress on stderr, runs the analysis
// (answered from the database when the commits were analysed before) and logs its notices.
Result<AnalysisOutcome> AnalyseForCommand(analyzer::AnalyzeRequest& request, const analyzer::Rules& rules);

}  // namespace forkscope::server
