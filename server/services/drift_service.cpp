#include "server/services/drift_service.h"

#include "base/clock.h"

#include <chrono>

#include "base/log.h"
#include "storage/db.h"
#include "storage/drift_store.h"

namespace forkscope::server {
namespace {

// The header fields ResolvePair decides; the files stay in the outcome's analysis.
analyzer::Analysis HeaderOf(const analyzer::Analysis& a) {
  analyzer::Analysis h;
  h.fork = a.fork;
  h.upstream = a.upstream;
  h.merge_base = a.merge_base;
  h.base_source = a.base_source;
  h.base_distance = a.base_distance;
  h.upstream_branch_choice = a.upstream_branch_choice;
  h.ahead = a.ahead;
  h.behind = a.behind;
  return h;
}

}  // namespace

Status SyncForksMissingData(storage::StoreOpener& stores, SyncService& sync) {
  FS_ASSIGN_OR_RETURN(auto store, stores.Open());
  FS_ASSIGN_OR_RETURN(auto forks, store->ListForks());
  storage::DriftStore drift(store->db());
  for (const auto& f : forks) {
    FS_ASSIGN_OR_RETURN(auto latest, drift.Latest(f.id));
    if (!f.latest_analysis_id || !latest) FS_RETURN_IF_ERROR(sync.EnqueueSync(f).status());
  }
  return Status::Ok();
}

Result<analyzer::DriftReport> DriftOfOutcome(const AnalysisOutcome& outcome, const std::string& fork_name, int64_t now,
                                             const analyzer::DriftOptions& options) {
  analyzer::ResolvedPair pair{outcome.fork_mirror, outcome.upstream_mirror, HeaderOf(outcome.analysis), outcome.refs};
  FS_ASSIGN_OR_RETURN(analyzer::DriftReport report, analyzer::ComputeDrift(pair, outcome.analysis, now, options));
  report.fork = fork_name;
  return report;
}

Result<StoredDrift> StoreDriftOfOutcome(storage::Store& store, const std::string& fork_name,
                                        const AnalysisOutcome& outcome, int64_t now,
                                        const analyzer::DriftOptions& options) {
  FS_ASSIGN_OR_RETURN(storage::ForkRecord fork, store.GetFork(fork_name));
  FS_ASSIGN_OR_RETURN(analyzer::DriftReport report, DriftOfOutcome(outcome, fork_name, now, options));
  storage::DriftStore drift(store.db());
  FS_ASSIGN_OR_RETURN(std::vector<analyzer::DriftSummary> before, drift.History(fork.id, 1));
  FS_RETURN_IF_ERROR(drift.Save(fork.id, report).status());
  base::Log(base::LogArea::kSync)
      ->info("drift stored fork={} behind={} touching={} conflicts={} redundant={} risk={:.2f}", fork_name,
             report.behind, report.upstream_commits_touching_patched.size(), report.predicted_conflicts.size(),
             report.redundant_hunks.size(), report.risk);
  StoredDrift stored{std::move(report), std::nullopt};
  if (!before.empty()) stored.previous = before.front();
  return stored;
}

SyncHook MakeDriftHook(base::Clock& clock, analyzer::DriftOptions options, DriftListener on_report) {
  return [&clock, options, on_report = std::move(on_report)](storage::Store& store, const storage::TaskRecord& task,
                                                             const AnalysisOutcome* outcome) {
    if (outcome == nullptr || task.fork_name.empty()) return;
    auto stored = StoreDriftOfOutcome(store, task.fork_name, *outcome, clock.NowS(), options);
    if (!stored.ok()) {
      base::Log(base::LogArea::kSync)->warn("drift failed fork={} error={}", task.fork_name, stored.status().message());
      return;
    }
    if (on_report) on_report(store, task.fork_name, stored->report, stored->previous);
  };
}

}  // namespace forkscope::server
