#include "server/cli/progress.h"

#include "analyzer/model/transfer.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include <memory>
#include "analyzer/integration/eager_import.h"
#include "base/log.h"
#include "server/config/paths.h"

namespace forkscope::server {
namespace {

struct ReporterState {
  bool tty = false;
  std::string url;
  int last_step = -1;
  analyzer::ProgressLines lines;
};

void DrawBar(const analyzer::TransferProgress& p, int pct) {
  constexpr int kWidth = 30;
  int filled = pct * kWidth / 100;
  std::fprintf(stderr, "\r%-40.40s [%.*s%*s] %3d%% %-17s %u/%u objects %.1f MiB %u/%u deltas", p.url.c_str(), filled,
               "##############################", kWidth - filled, "", pct, analyzer::PhaseName(p.phase),
               p.received_objects, p.total_objects, p.received_bytes / 1048576.0, p.indexed_deltas, p.total_deltas);
  if (pct >= 100) std::fputc('\n', stderr);
  std::fflush(stderr);
}

}  // namespace

analyzer::ProgressFn MakeProgressReporter() {
  auto state = std::make_shared<ReporterState>();
  state->tty = isatty(STDERR_FILENO);
  return [state](const analyzer::TransferProgress& p) {
    if (p.url != state->url) state->url = p.url, state->last_step = -1;
    int pct = std::max(p.Percent(), state->last_step);
    if (!state->tty) {
      if (std::string line = state->lines.Next(p); !line.empty()) base::Log(base::LogArea::kCli)->info("{}", line);
      return true;
    }
    if (pct != state->last_step) DrawBar(p, pct);
    state->last_step = pct;
    return true;
  };
}

Result<AnalysisOutcome> AnalyseForCommand(analyzer::AnalyzeRequest& req, const analyzer::Rules& rules) {
  if (req.data_dir.empty()) req.data_dir = DefaultDataDir();
  std::error_code ec;
  std::filesystem::create_directories(req.data_dir, ec);
  if (ec) return Unavailable("cannot create data directory " + req.data_dir + ": " + ec.message());
  FS_ASSIGN_OR_RETURN(auto store, storage::Store::Open(DatabasePath(req.data_dir)));
  req.progress = MakeProgressReporter();
  FS_ASSIGN_OR_RETURN(AnalysisOutcome outcome, RunAnalysis(req, rules, *store));
  // The drift and carry reports do not repeat the analysis' notices (a fallback branch, a capped scan).
  // The needed compat scope is information (the analysis' report shows it), not a warning.
  for (const auto& n : outcome.analysis.notices)
    if (n.rfind(analyzer::integration::kNeededScopeNotice, 0) != 0)
      base::Log(base::LogArea::kCli)->warn("analysis: {}", n);
  return outcome;
}

}  // namespace forkscope::server
