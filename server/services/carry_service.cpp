#include "server/services/carry_service.h"

#include <algorithm>

#include "analyzer/carry/carry.h"
#include "base/log.h"
#include "base/memory.h"
#include "base/message_code.h"
#include "base/url.h"
#include "server/services/analysis_service.h"
#include "server/services/repositories.h"

namespace forkscope::server {
namespace {

using storage::CandidateRecord;
using storage::CandidateState;
using storage::JobState;

// The target: the upstream head of the analysis, or a revision resolved in upstream, then in the fork
// (as `forkscope carry --onto`).
Result<std::string> ResolveOnto(const ForkRepo& repo, const analyzer::Analysis& a, const std::string& onto) {
  if (onto.empty()) return a.upstream.sha;
  return ResolveCarryTarget(repo, onto);
}

// A command-line argument as a POSIX shell reads it back: bare when it holds only safe characters.
std::string ShellArg(const std::string& s) {
  const bool safe = !s.empty() && s.find_first_not_of(
                                      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                      "0123456789@%+=:,./_-") == std::string::npos;
  if (safe) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

bool StopsJob(JobState s) {
  return s == JobState::kFailed || s == JobState::kTimedOut || s == JobState::kLost || s == JobState::kCancelled;
}

// What a finished build job says of the candidate it ran on. Only a job whose every stage passed
// makes it ready; a skipped stage (no GPU runner) leaves it unvalidated.
storage::CandidateUpdate UpdateFromJob(const storage::JobRecord& job) {
  storage::CandidateUpdate u;
  u.reason = job.reason;
  u.reason_code = job.reason_code;
  u.reason_params = job.reason_params;
  switch (job.state) {
    case JobState::kPassed:
      u.state = CandidateState::kReady;
      u.reason.clear();
      u.reason_code.clear();
      u.reason_params = "{}";
      break;
    case JobState::kFailed:
    case JobState::kTimedOut:
    case JobState::kLost: {
      u.state = CandidateState::kFailed;
      auto stage = std::find_if(job.stages.begin(), job.stages.end(),
                                [](const storage::StageRecord& s) { return StopsJob(s.state); });
      // A job that failed before any stage ran failed at its checkout.
      u.failing_stage = stage != job.stages.end() ? stage->name : "checkout";
      break;
    }
    case JobState::kCancelled:
      u.state = CandidateState::kUnvalidated;
      u.reason = "the build job was cancelled";
      u.reason_code = "candidate.job_cancelled";
      u.reason_params = "{}";
      break;
    default:  // skipped (queued and running jobs never end here)
      u.state = CandidateState::kUnvalidated;
      if (u.reason.empty()) {
        u.reason = "a stage of the build job was skipped";
        u.reason_code = "candidate.stage_skipped";
        u.reason_params = "{}";
      }
      break;
  }
  return u;
}

}  // namespace

std::vector<std::string> PublishCommands(const storage::CandidateRecord& c) {
  if (c.candidate_sha.empty() || c.candidate_ref.empty()) return {};
  const std::string url = ShellArg(RedactUrl(c.fork_url));
  const std::string replace = "git push --force-with-lease=refs/heads/" + c.branch + ":" + c.fork_sha + " " + url +
                              " FETCH_HEAD:refs/heads/" + c.branch;
  if (!c.published_branch.empty())
    return {"git fetch " + ShellArg(RedactUrl(c.published_url)) + " " + ShellArg("refs/heads/" + c.published_branch),
            replace};
  std::vector<std::string> commands = {"git fetch " + ShellArg(c.repo) + " " + ShellArg(c.candidate_ref)};
  // Only a candidate whose build job passed is offered for pushing; others can be fetched and looked at.
  if (c.state != CandidateState::kReady) return commands;
  commands.push_back("git push " + url + " FETCH_HEAD:" + SyncBranchRef(c.onto));
  commands.push_back(replace);
  return commands;
}

struct CarryService::CarryJob {
  std::string fork;
  CarryParams params;
  analyzer::CarryStrategy strategy = analyzer::CarryStrategy::kRebase;
  std::optional<int64_t> analysis_id;
  storage::CandidateTrigger trigger = storage::CandidateTrigger::kApi;
};

CarryService::CarryService(CarryServiceOptions options, analyzer::Rules rules, TaskRuntime& runtime, base::Clock& clock)
    : options_(std::move(options)), rules_(std::move(rules)), runtime_(runtime), clock_(clock) {}

Status CarryService::Start() {
  FS_ASSIGN_OR_RETURN(auto store, options_.stores->Open());
  // What a previous process left is taken up as far as possible; it never keeps the daemon down.
  if (Status st = Reconcile(*store); !st.ok())
    base::Log(base::LogArea::kCarry)->warn("carry start-up reconciliation: {}", st.message());
  return Status::Ok();
}

Result<std::string> CarryService::Enqueue(const storage::ForkRecord& fork, const CarryParams& params,
                                          std::optional<int64_t> analysis_id, storage::CandidateTrigger trigger) {
  CarryJob job{fork.name, params, params.strategy.value_or(options_.strategy), analysis_id, trigger};
  TaskSpec spec;
  spec.kind = TaskKind::kCarry;
  spec.fork = fork.name;
  // A queued carry of the same fork with the same parameters is the same carry.
  spec.key = "carry " + fork.name + " " + params.onto + " " + analyzer::CarryStrategyName(job.strategy) + " " +
             (analysis_id ? std::to_string(*analysis_id) : "latest");
  spec.run = [this, job](TaskContext& ctx) { return RunCarry(ctx, job); };
  FS_ASSIGN_OR_RETURN(std::string id, runtime_.Submit(std::move(spec)));
  base::Log(base::LogArea::kCarry)
      ->info("carry queued task={} fork={} onto={} strategy={} trigger={}", id, fork.name,
             params.onto.empty() ? "upstream-head" : params.onto, analyzer::CarryStrategyName(job.strategy),
             storage::CandidateTriggerName(trigger));
  return id;
}

SyncHook CarryService::MakeSyncHook() {
  return [this](storage::Store& store, const storage::TaskRecord& task, const AnalysisOutcome* outcome) {
    if (outcome == nullptr || task.fork_name.empty()) return;
    const analyzer::Analysis& a = outcome->analysis;
    if (a.behind <= 0) {  // upstream's head is in the fork already (a candidate was published, say)
      Decided(store, task.fork_name, nullptr);
      return;
    }
    if (!options_.after_sync) return;
    auto fork = store.GetFork(task.fork_name);
    if (!fork.ok()) return;
    auto carried = storage::CandidateStore(store.db()).Find(fork->id, a.fork.sha, a.upstream.sha, options_.strategy);
    if (!carried.ok() || *carried) return;  // this head was carried onto this target before
    auto queued = Enqueue(*fork, {}, outcome->analysis_id, storage::CandidateTrigger::kSync);
    if (!queued.ok())
      base::Log(base::LogArea::kCarry)
          ->warn("carry after sync fork={} error={}", task.fork_name, queued.status().message());
  };
}

Status CarryService::RunCarry(TaskContext& ctx, const CarryJob& job) {
  ctx.Progress(10, "carry");
  auto candidate = Carry(ctx, job);
  if (!candidate.ok()) {
    base::Log(base::LogArea::kCarry)
        ->warn("carry failed task={} fork={} error={}", ctx.id(), job.fork, candidate.status().message());
    return candidate.status();
  }
  if (*candidate) ctx.SetCandidate(**candidate);
  return Status::Ok();
}

Result<std::optional<int64_t>> CarryService::Carry(TaskContext& ctx, const CarryJob& job) {
  storage::Store& store = ctx.store();
  FS_ASSIGN_OR_RETURN(storage::ForkRecord fork, store.GetFork(job.fork));
  std::optional<int64_t> analysis_id = job.analysis_id ? job.analysis_id : fork.latest_analysis_id;
  if (!analysis_id) return FailedPrecondition("fork '" + fork.name + "' has not been synced yet; POST its /sync first");
  FS_ASSIGN_OR_RETURN(analyzer::Analysis analysis, store.LoadAnalysis(*analysis_id));
  FS_ASSIGN_OR_RETURN(ForkRepo network, ForkRepoOf(options_.data_dir, fork));
  FS_ASSIGN_OR_RETURN(std::string onto, ResolveOnto(network, analysis, job.params.onto));
  storage::CandidateStore candidates(store.db());
  FS_ASSIGN_OR_RETURN(auto existing, candidates.Find(fork.id, analysis.fork.sha, onto, job.strategy));
  if (existing) {
    ctx.SetStage("already carried");
    return std::optional<int64_t>(existing->id);
  }
  analyzer::CarryOptions o;
  o.onto = onto;
  o.strategy = job.strategy;
  o.committer_name = options_.committer_name;
  o.committer_email = options_.committer_email;
  o.clock = &clock_;
  analyzer::ResolvedPair pair{network.path, network.path, analysis, network.refs};
  FS_ASSIGN_OR_RETURN(analyzer::CarryResult carry, analyzer::CarryAnalysed(pair, analysis, rules_, o));
  base::Log(base::LogArea::kCarry)
      ->info("carry done task={} fork={} onto={} state={} ms={}", ctx.id(), fork.name, onto.substr(0, 12),
             analyzer::CarryStateName(carry.state), carry.duration_ms);
  if (carry.state == analyzer::CarryState::kUpToDate) {
    ctx.SetStage("up to date");
    Decided(store, fork.name, nullptr);
    return std::optional<int64_t>();
  }
  // Deleted while it carried: the candidate would have no fork to belong to.
  if (ctx.cancelled()) return Cancelled("cancelled before its candidate was stored");
  CandidateRecord row = storage::CandidateFromCarry(fork.id, carry, network.path);
  row.task_id = ctx.id();
  row.triggered_by = job.trigger;
  FS_ASSIGN_OR_RETURN(auto inserted, candidates.Insert(row, clock_.NowS()));
  CandidateRecord stored = std::move(inserted.first);
  ctx.SetStage(!inserted.second ? "already carried" : storage::CandidateStateName(stored.state));
  if (!inserted.second) return std::optional<int64_t>(stored.id);
  if (stored.state == CandidateState::kConflict) {
    Decided(store, fork.name, &stored);
    return std::optional<int64_t>(stored.id);
  }
  FS_ASSIGN_OR_RETURN(stored, Validate(store, std::move(stored)));
  ctx.SetStage(storage::CandidateStateName(stored.state));
  return std::optional<int64_t>(stored.id);
}

Result<CandidateRecord> CarryService::Validate(storage::Store& store, CandidateRecord candidate) {
  storage::CandidateUpdate u;
  {
    // Held until the job id is stored, so OnJobFinished of a job that ends at once finds its candidate.
    std::lock_guard<std::mutex> lock(validate_mu_);
    Result<std::string> job = validator_ ? validator_(store, candidate)
                                         : Result<std::string>(FailedPrecondition("no build jobs are configured"));
    if (!job.ok() && job.status().code() == StatusCode::kUnavailable) {
      // The job service is stopping: the candidate stays clean and the next start queues its job.
      base::Log(base::LogArea::kCarry)
          ->warn("candidate id={} job not queued: {}", candidate.id, job.status().message());
      return candidate;
    }
    if (job.ok()) {
      u.state = CandidateState::kValidating;
      u.job_id = *job;
    } else {
      u.state = CandidateState::kUnvalidated;
      u.reason = "no build job: " + job.status().message();
      u.reason_code = "candidate.no_job";
      u.reason_params = base::MessageParamsText({{"error", job.status().message()}});
    }
    FS_ASSIGN_OR_RETURN(candidate, storage::CandidateStore(store.db()).Update(candidate.id, u, clock_.NowS()));
  }
  base::Log(base::LogArea::kCarry)
      ->info("candidate id={} fork={} state={} job={} reason={}", candidate.id, candidate.fork,
             storage::CandidateStateName(candidate.state), candidate.job_id, candidate.reason);
  if (storage::IsDecided(candidate.state)) Decided(store, candidate.fork, &candidate);
  return candidate;
}

bool CarryService::OnJobFinished(storage::Store& store, const storage::JobRecord& job) {
  std::optional<CandidateRecord> decided;
  {
    std::lock_guard<std::mutex> lock(validate_mu_);
    storage::CandidateStore candidates(store.db());
    auto candidate = candidates.ForJob(job.id);
    if (!candidate.ok()) {
      base::Log(base::LogArea::kCarry)->warn("candidate of job={} unknown: {}", job.id, candidate.status().message());
      return false;
    }
    if (!*candidate) return false;
    if ((*candidate)->state != CandidateState::kValidating) return true;  // taken up already (restart)
    auto updated = candidates.Update((*candidate)->id, UpdateFromJob(job), clock_.NowS());
    if (!updated.ok()) {
      base::Log(base::LogArea::kCarry)
          ->warn("candidate id={} job={} update failed: {}", (*candidate)->id, job.id, updated.status().message());
      return true;
    }
    decided = std::move(*updated);
  }
  base::Log(base::LogArea::kCarry)
      ->info("candidate id={} fork={} state={} stage={} reason={}", decided->id, decided->fork,
             storage::CandidateStateName(decided->state), decided->failing_stage, decided->reason);
  // A ready candidate to publish is pushed first (as a task: never on the job's own thread),
  // so that its alert can say where it went. Stopping: the next start pushes it and tells.
  if (decided->state == CandidateState::kReady && TargetOf(*decided) != nullptr) {
    QueuePublish(decided->fork, decided->id);
    return true;
  }
  Decided(store, decided->fork, &*decided);
  return true;
}

const PublishTarget* CarryService::TargetOf(const CandidateRecord& c) const {
  auto it = options_.publish.find(c.fork);
  return it == options_.publish.end() || it->second.push_url.empty() ? nullptr : &it->second;
}

bool CarryService::QueuePublish(const std::string& fork, int64_t candidate_id) {
  TaskSpec spec;
  spec.kind = TaskKind::kPublish;
  spec.fork = fork;
  spec.subject = "candidate " + std::to_string(candidate_id);
  spec.key = "publish " + std::to_string(candidate_id);
  spec.run = [this, candidate_id](TaskContext& ctx) {
    Publish(ctx.store(), candidate_id);
    return Status::Ok();
  };
  auto queued = runtime_.Submit(std::move(spec));
  if (!queued.ok())
    base::Log(base::LogArea::kCarry)
        ->warn("candidate id={} push not queued: {}", candidate_id, queued.status().message());
  return queued.ok();
}

std::string CarryService::RefusePublish(storage::Store& store, const CandidateRecord& c, const PublishTarget& target) {
  // push_url belongs to the fork as configured: one re-registered (API) with another URL is not pushed.
  if (base::SplitCredentials(c.fork_url).url != base::SplitCredentials(target.fork_url).url)
    return "the fork's registered URL is no longer the one configured with push_url";
  // Nor one carried onto another upstream's history: the network a candidate lives in is its upstream's.
  auto fork = store.GetFork(c.fork);
  const std::string configured = NetworkPathOf(options_.data_dir, target.upstream_url);
  if (!fork.ok() || configured.empty() ||
      base::SplitCredentials(fork->upstream_url).url != base::SplitCredentials(target.upstream_url).url ||
      c.repo != configured)
    return "the candidate was not carried onto the upstream configured with push_url";
  // And only onto upstream's own history (a carry's onto may name a fork commit).
  auto on_upstream = OnUpstream(c.repo, c.onto);
  if (!on_upstream.ok() || !*on_upstream) return "its target commit is not on the configured upstream's branches";
  return "";
}

void CarryService::Publish(storage::Store& store, int64_t candidate_id) {
  storage::CandidateStore candidates(store.db());
  auto found = candidates.Get(candidate_id);
  if (!found.ok() || !*found) return;  // deleted with its fork meanwhile
  CandidateRecord c = std::move(**found);
  const PublishTarget* target = TargetOf(c);
  if (c.state != CandidateState::kReady || !c.published_url.empty() || target == nullptr) return;
  storage::PublishOutcome outcome;
  outcome.url = RedactUrl(target->push_url);
  const std::string ref = SyncBranchRef(c.onto);
  outcome.branch = ref.substr(std::string("refs/heads/").size());
  Status pushed;
  if (std::string refused = RefusePublish(store, c, *target); !refused.empty()) {
    pushed = FailedPrecondition("not pushed: " + refused);
  } else {
    PushRequest request;
    request.repo = c.repo;
    request.source_ref = c.candidate_ref;
    request.expected_sha = c.candidate_sha;
    request.url = base::WithUserinfo(target->push_url, target->userinfo);
    request.dest_ref = ref;
    request.migration_branch = c.branch;
    pushed = PushCandidate(request);
  }
  if (pushed.ok()) {
    base::Log(base::LogArea::kCarry)
        ->info("candidate published id={} fork={} url={} branch={} sha={}", c.id, c.fork, outcome.url, outcome.branch,
               c.candidate_sha);
  } else {
    outcome.error = base::ScrubSecret(pushed.message(), target->userinfo);
    base::Log(base::LogArea::kCarry)
        ->warn("candidate publish failed id={} fork={} url={} branch={} error={}", c.id, c.fork, outcome.url,
               outcome.branch, outcome.error);
  }
  auto recorded = candidates.RecordPublish(c.id, outcome, clock_.NowS());
  if (!recorded.ok()) {
    base::Log(base::LogArea::kCarry)
        ->warn("candidate id={} publish outcome not stored: {}", c.id, recorded.status().message());
  } else {
    c = std::move(*recorded);
  }
  Decided(store, c.fork, &c);
}

void CarryService::Decided(storage::Store& store, const std::string& fork, const CandidateRecord* decided) {
  if (listener_) listener_(store, fork, decided);
}

// Start-up: candidates left clean get their job, validating ones whose job ended are decided, a ready
// one left unpushed is pushed, and (with after_sync) the carries a previous process did not finish are
// queued again.
Status CarryService::Reconcile(storage::Store& store) {
  storage::CandidateStore candidates(store.db());
  // Validating ones first: those were validating before this start (their jobs are in the table).
  FS_ASSIGN_OR_RETURN(auto validating, candidates.InState(CandidateState::kValidating));
  storage::JobStore jobs(store.db());
  for (const auto& c : validating) {
    FS_ASSIGN_OR_RETURN(auto job, jobs.Get(c.job_id));
    if (job && storage::IsFinished(job->state)) OnJobFinished(store, *job);
    if (!job) {
      storage::CandidateUpdate gone{CandidateState::kUnvalidated, "", "", "its build job " + c.job_id + " is gone"};
      FS_ASSIGN_OR_RETURN(auto updated, candidates.Update(c.id, gone, clock_.NowS()));
      Decided(store, updated.fork, &updated);
    }
  }
  FS_ASSIGN_OR_RETURN(auto clean, candidates.InState(CandidateState::kClean));
  for (auto& c : clean) FS_RETURN_IF_ERROR(Validate(store, std::move(c)).status());
  // A fork's newest candidate, ready and never pushed (the previous process stopped first, or push_url
  // is new): pushed now, then told. Older ones are left alone: a new push_url does not publish history.
  FS_ASSIGN_OR_RETURN(auto unpublished, candidates.Unpublished());
  FS_ASSIGN_OR_RETURN(auto newest, candidates.LatestOfEachFork());
  for (const auto& c : unpublished) {
    const bool is_newest =
        std::any_of(newest.begin(), newest.end(), [&c](const CandidateRecord& n) { return n.id == c.id; });
    if (is_newest && TargetOf(c) != nullptr) QueuePublish(c.fork, c.id);
  }
  if (!options_.after_sync) return Status::Ok();
  FS_ASSIGN_OR_RETURN(auto forks, store.ListForks());
  for (const auto& f : forks) {
    if (!f.latest_analysis_id) continue;
    FS_ASSIGN_OR_RETURN(analyzer::Analysis a, store.LoadAnalysis(*f.latest_analysis_id));
    if (a.behind <= 0) continue;
    FS_ASSIGN_OR_RETURN(auto carried, candidates.Find(f.id, a.fork.sha, a.upstream.sha, options_.strategy));
    if (!carried) FS_RETURN_IF_ERROR(Enqueue(f, {}, f.latest_analysis_id, storage::CandidateTrigger::kSync).status());
  }
  return Status::Ok();
}

}  // namespace forkscope::server
