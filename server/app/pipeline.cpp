// The daemon's flow. A sync (scheduled, or POST /forks/{name}/sync) runs its steps below, in order, on
// its own worker before its task is marked finished; each step is a function of the sync's outcome
// (null when it failed) and never fails the sync. Some steps queue tasks of their own (a carry, a
// build job), whose ends lead on, as the second half of this file says:
//
//   sync ─► schedule ─► drift + alerts ─► patterns ─► job ─► carry ─► integration pins
//                                                              │ (upstream ahead, head not carried yet)
//                                                              ▼
//                         carry task ─► candidate: conflict ─► alerts
//                                                  clean ─► validation job ─► job finished
//                                                                                 │
//        candidate ready ─► publish task (forks with push_url) ─► alerts ◄────────┘ failed / unvalidated
//                             └► integrators pinning the fork: bump commands in the alert; a bump task
//                                pushes forkscope/bump-<lib>-<sha12> to an integrator with push_url
#include "server/app/pipeline.h"

#include <string>
#include <utility>
#include <vector>

#include "base/log.h"
#include "server/services/drift_service.h"

namespace forkscope::server {
namespace {

struct Step {
  const char* name;
  SyncHook run;
};

// The steps after a sync, in the order they run.
std::vector<Step> AfterSync(const PipelineServices& s) {
  AlertEngine& alerts = s.alerts;
  return {
      // The outcome counts for the fork's health (sync-failing) and sets its next due time.
      {"schedule", s.scheduler.Hook()},
      // Drift since the fork was cut, stored with its history; the alert rules judge it.
      {"drift",
       MakeDriftHook(s.clock, {},
                     [&alerts](storage::Store& store, const std::string& fork, const analyzer::DriftReport& report,
                               const std::optional<analyzer::DriftSummary>& previous) {
                       Status st = alerts.OnDrift(store, fork, report, previous);
                       if (!st.ok())
                         base::Log(base::LogArea::kApp)->warn("alerts fork={} error={}", fork, st.message());
                     })},
      // New analyses mined into the pattern catalogue.
      {"patterns", s.patterns.Hook()},
      // The fork's build job on a new head (jobs.trigger_on_sync).
      {"job", s.jobs.MakeSyncHook()},
      // A carry onto upstream's head when upstream moved (carry.after_sync): see below.
      {"carry", s.carry.MakeSyncHook()},
      // Every integrator re-judged without a fetch: the fork moved, so its pins' states may have.
      {"integration pins", s.integrations.MakeSyncHook()},
  };
}

}  // namespace

void WirePipeline(SyncService& sync, const PipelineServices& s) {
  sync.SetPipeline(
      [steps = AfterSync(s)](storage::Store& store, const storage::TaskRecord& task, const AnalysisOutcome* outcome) {
        for (const Step& step : steps) step.run(store, task, outcome);
      });
  // A clean candidate is validated by the fork's build job, on the candidate's commit.
  JobService& jobs = s.jobs;
  s.carry.SetValidator([&jobs](storage::Store& store, const storage::CandidateRecord& c) -> Result<std::string> {
    FS_ASSIGN_OR_RETURN(storage::JobRecord job, jobs.Submit(store, JobRequest{c.fork, c.candidate_sha, "", ""}));
    return job.id;
  });
  // A decided candidate (conflict, ready — after its push, failed, unvalidated) goes to the alert rules;
  // a ready one first to the integrators that pin its fork (their bump commands join the alert).
  AlertEngine& alerts = s.alerts;
  IntegrationService& integrations = s.integrations;
  s.carry.SetListener(
      [&alerts, &integrations](storage::Store& store, const std::string& fork, const storage::CandidateRecord* c) {
        std::vector<std::string> notes;
        if (c != nullptr && c->state == storage::CandidateState::kReady)
          notes = integrations.OnCandidateReady(store, *c);
        Status st = alerts.OnCandidate(store, fork, c, notes);
        if (!st.ok()) base::Log(base::LogArea::kApp)->warn("alerts fork={} error={}", fork, st.message());
      });
  // A finished job decides its candidate, if it validated one; else it is the fork head's own job, and
  // a failing one is alerted. Cancelled and skipped jobs say nothing about the fork; a lost one fails.
  CarryService& carry = s.carry;
  jobs.SetOnFinished([&carry, &alerts](storage::Store& store, const storage::JobRecord& job) {
    if (carry.OnJobFinished(store, job)) return;
    const bool passed = job.state == storage::JobState::kPassed;
    const bool failed = job.state == storage::JobState::kFailed || job.state == storage::JobState::kTimedOut ||
                        job.state == storage::JobState::kLost;
    if (job.fork.empty() || (!passed && !failed)) return;
    Status st = alerts.OnJobResult(store, job.fork, job.sha, passed);
    if (!st.ok()) base::Log(base::LogArea::kApp)->warn("alerts fork={} error={}", job.fork, st.message());
  });
}

}  // namespace forkscope::server
