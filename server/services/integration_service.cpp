#include "server/services/integration_service.h"

#include <algorithm>

#include "analyzer/integration/integrator_json.h"
#include "analyzer/integration/repo_url.h"
#include "base/log.h"
#include "base/url.h"
#include "server/services/analysis_service.h"

namespace forkscope::server {
namespace {

namespace ai = analyzer::integration;

constexpr int kMinIntervalS = 300;

std::string Short(const std::string& sha) { return sha.substr(0, 12); }

}  // namespace

// --- the reading ---------------------------------------------------------------------------------

Result<ai::IntegratorSource> SyncIntegratorSource(const std::string& name, const std::string& url,
                                                  const std::string& branch, bool fetch,
                                                  const NetworkSyncOptions& options) {
  FS_ASSIGN_OR_RETURN(std::string location, NormalizeLocation(url));
  NetworkSyncOptions o = options;
  o.fetch = fetch;
  // The integrator is the upstream of its own network, like any repository without a fork.
  FS_ASSIGN_OR_RETURN(NetworkSyncResult network, SyncUpstream(location, o));
  ai::IntegratorSource source;
  source.name = name;
  source.url = location;
  FS_ASSIGN_OR_RETURN(source.branch, PickBranch(network.view.path, network.view.refs.upstream, branch, ""));
  source.repo = network.view.path;
  source.ref = network.view.refs.upstream + "heads/" + source.branch;
  return source;
}

ai::RegisteredFork SyncForkForIntegration(const std::string& name, const std::string& url, const std::string& branch,
                                          const std::string& upstream_url, const std::string& upstream_branch,
                                          const NetworkSyncOptions& options) {
  ai::RegisteredFork f;
  f.name = name;
  f.url = url;
  f.branch = branch;
  auto fail = [&](const Status& st) {
    base::Log(base::LogArea::kIntegration)->warn("fork {} unreachable: {}", name, st.message());
    f.fetch_error = st.message();
    return f;
  };
  auto location = NormalizeLocation(url);
  if (!location.ok()) return fail(location.status());
  f.url = *location;
  std::string upstream = *location;  // without an upstream, the fork is the upstream of its own network
  if (!upstream_url.empty()) {
    auto up = NormalizeLocation(upstream_url);
    if (!up.ok()) return fail(up.status());
    upstream = *up;
  }
  auto synced = server::SyncForkNetwork(upstream, *location, name, options);
  if (!synced.ok()) return fail(synced.status());
  auto picked = PickBranch(synced->view.path, synced->view.refs.fork, branch, "paddle");
  if (!picked.ok()) return fail(picked.status());
  f.branch = *picked;
  f.repo = synced->view.path;
  f.refs_prefix = synced->view.refs.fork;
  if (!upstream_url.empty()) {
    auto ub = PickBranch(synced->view.path, synced->view.refs.upstream, upstream_branch, "");
    if (ub.ok()) f.upstream_ref = synced->view.refs.upstream + "heads/" + *ub;
  }
  return f;
}

Status ScopeForks(const analyzer::Rules& rules, std::vector<ai::RegisteredFork>& forks) {
  for (auto& f : forks) FS_RETURN_IF_ERROR(ai::ForkPackageNames(rules, f));
  for (auto& f : forks) {
    if (!f.needed_scope.empty()) continue;  // known already (the daemon caches it by the fork's head)
    std::vector<std::string> others;
    for (const auto& g : forks)
      if (&g != &f) others.insert(others.end(), g.packages.begin(), g.packages.end());
    FS_RETURN_IF_ERROR(ai::ForkPackageScope(rules, f, others));
  }
  return Status::Ok();
}

ReportCounts CountsOf(const ai::IntegratorReport& report) {
  ReportCounts c;
  c.libraries = static_cast<int>(report.libraries.size());
  for (const auto& lib : report.libraries) {
    c.orphaned += lib.state == ai::PinState::kOrphaned;
    c.behind += lib.state == ai::PinState::kBehind;
  }
  return c;
}

// --- the service ---------------------------------------------------------------------------------

IntegrationService::IntegrationService(IntegrationServiceOptions options, analyzer::Rules rules, TaskRuntime& runtime,
                                       AlertEngine& alerts, base::Clock& clock)
    : options_(std::move(options)), rules_(std::move(rules)), runtime_(runtime), alerts_(alerts), clock_(clock) {}

const IntegratorConfig* IntegrationService::Configured(const std::string& name) const {
  for (const auto& in : options_.configured)
    if (in.name == name) return &in;
  return nullptr;
}

Status IntegrationService::Start() {
  FS_ASSIGN_OR_RETURN(auto store, options_.stores->Open());
  storage::IntegratorStore integrators(store->db());
  for (const auto& in : options_.configured)
    FS_RETURN_IF_ERROR(
        integrators.Upsert(in.name, in.url, in.branch, base::SplitCredentials(in.push_url).url, clock_.NowS())
            .status());
  FS_ASSIGN_OR_RETURN(auto registered, integrators.List());
  for (const auto& r : registered) {
    FS_RETURN_IF_ERROR(EnqueueSync(r.name).status());
    const IntegratorConfig* in = Configured(r.name);
    if (options_.schedule) SubmitPeriodic(r.name, in ? in->sync_interval_s : IntegratorConfig{}.sync_interval_s);
  }
  return Status::Ok();
}

// A timer (not recorded) that queues the integrator's sync when it is due, then sets the next one.
void IntegrationService::SubmitPeriodic(const std::string& name, int interval_s) {
  TaskSpec spec;
  spec.kind = TaskKind::kSchedule;
  spec.key = "integration timer " + name;
  spec.recorded = false;
  spec.not_before_s = clock_.NowS() + std::max(interval_s, kMinIntervalS);
  spec.run = [this, name, interval_s](TaskContext&) {
    SubmitPeriodic(name, interval_s);
    return EnqueueSync(name).status();
  };
  (void)runtime_.Submit(std::move(spec));  // Unavailable only while the daemon stops
}

Result<storage::IntegratorRecord> IntegrationService::Register(storage::Store& store, const std::string& name,
                                                               const std::string& url, const std::string& branch) {
  FS_ASSIGN_OR_RETURN(storage::IntegratorRecord record,
                      storage::IntegratorStore(store.db()).Add(name, url, branch, "", clock_.NowS()));
  FS_RETURN_IF_ERROR(EnqueueSync(name).status());
  if (options_.schedule) SubmitPeriodic(name, IntegratorConfig{}.sync_interval_s);
  return record;
}

Result<std::string> IntegrationService::EnqueueSync(const std::string& name, bool fetch) {
  TaskSpec spec;
  spec.kind = TaskKind::kIntegration;
  spec.subject = "integrator " + name;
  spec.key = (fetch ? "integration " : "integration judge ") + name;
  spec.run = [this, name, fetch](TaskContext& ctx) { return RunSync(ctx, name, fetch); };
  return runtime_.Submit(std::move(spec));
}

SyncHook IntegrationService::MakeSyncHook() {
  return [this](storage::Store& store, const storage::TaskRecord&, const AnalysisOutcome* outcome) {
    if (outcome == nullptr) return;
    auto registered = storage::IntegratorStore(store.db()).List();
    if (!registered.ok()) return;
    for (const auto& r : *registered) (void)EnqueueSync(r.name, false);
  };
}

Result<std::vector<ai::RegisteredFork>> IntegrationService::RegisteredForks(storage::Store& store) {
  FS_ASSIGN_OR_RETURN(std::vector<storage::ForkRecord> records, store.ListForks());
  std::vector<ai::RegisteredFork> forks;
  std::vector<std::string> heads;  // each fork's analysed head, for the scope cache
  for (const auto& rec : records) {
    ai::RegisteredFork f;
    f.name = rec.name;
    f.url = rec.fork_url;
    f.branch = rec.branch.empty() ? "paddle" : rec.branch;
    std::string head;
    if (rec.latest_analysis_id) {
      auto a = store.LoadAnalysis(*rec.latest_analysis_id);
      if (a.ok()) {
        f.branch = a->fork.branch;
        head = a->fork.sha;
      }
    }
    auto repo = ForkRepoOf(options_.data_dir, rec);
    if (!repo.ok() || !Exists(*repo) || head.empty()) {
      f.fetch_error = repo.ok() ? "the fork has not been synced yet" : repo.status().message();
    } else {
      f.repo = repo->path;
      f.refs_prefix = repo->refs.fork;
      auto a = store.LoadAnalysis(*rec.latest_analysis_id);
      if (a.ok() && !a->upstream.branch.empty()) f.upstream_ref = repo->refs.upstream + "heads/" + a->upstream.branch;
      std::lock_guard<std::mutex> lock(mu_);
      if (auto it = scopes_.find(rec.name + " " + head); it != scopes_.end())
        std::tie(f.packages, f.needed_scope) = it->second;
    }
    forks.push_back(std::move(f));
    heads.push_back(head);
  }
  FS_RETURN_IF_ERROR(ScopeForks(rules_, forks));
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 0; i < forks.size(); ++i)
    if (!heads[i].empty() && !forks[i].repo.empty())
      scopes_[forks[i].name + " " + heads[i]] = {forks[i].packages, forks[i].needed_scope};
  return forks;
}

Status IntegrationService::RunSync(TaskContext& ctx, const std::string& name, bool fetch) {
  storage::Store& store = ctx.store();
  storage::IntegratorStore integrators(store.db());
  FS_ASSIGN_OR_RETURN(storage::IntegratorRecord record, integrators.Get(name));
  FS_ASSIGN_OR_RETURN(std::string url, integrators.FetchUrl(name));
  NetworkSyncOptions options;
  options.mirror.data_dir = options_.data_dir;
  options.mirror.allow_foreign_owner = options_.allow_foreign_owner;
  options.mirror.progress = [&ctx](const analyzer::TransferProgress& p) {
    ctx.Progress(p.Percent() * 60 / 100, "fetch integrator");
    return !ctx.cancelled();
  };
  auto source = SyncIntegratorSource(name, url, record.branch, fetch, options);
  if (!source.ok())
    return Status(source.status().code(),
                  base::ScrubSecret(source.status().message(), base::SplitCredentials(url).userinfo));
  ctx.Progress(60, "read");
  FS_ASSIGN_OR_RETURN(auto forks, RegisteredForks(store));
  FS_ASSIGN_OR_RETURN(ai::IntegratorReport report, ai::ReadIntegrator(*source, forks));
  report.url = RedactUrl(report.url);
  const ReportCounts counts = CountsOf(report);
  FS_RETURN_IF_ERROR(integrators
                         .SaveReport(name, report.head, analyzer::integration::IntegratorReportToJson(report).dump(),
                                     counts.libraries, counts.orphaned, counts.behind, clock_.NowS())
                         .status());
  ctx.SetStage(std::to_string(counts.libraries) + " libraries, " + std::to_string(counts.orphaned) + " orphaned, " +
               std::to_string(counts.behind) + " behind");
  base::Log(base::LogArea::kIntegration)
      ->info("integrator read name={} head={} libraries={} orphaned={} behind={} ms={}", name, Short(report.head),
             counts.libraries, counts.orphaned, counts.behind, report.read_us / 1000);
  if (Status st = alerts_.OnIntegration(store, name, report); !st.ok())
    base::Log(base::LogArea::kIntegration)->warn("integration alerts integrator={} error={}", name, st.message());
  return Status::Ok();
}

std::vector<std::string> IntegrationService::OnCandidateReady(storage::Store& store,
                                                              const storage::CandidateRecord& candidate) {
  std::vector<std::string> notes;
  if (candidate.candidate_sha.empty()) return notes;
  storage::IntegratorStore integrators(store.db());
  auto registered = integrators.List();
  if (!registered.ok()) return notes;
  for (const auto& r : *registered) {
    auto latest = integrators.LatestReport(r.name);
    if (!latest.ok() || !*latest) continue;
    auto report = analyzer::integration::IntegratorReportFromJson((*latest)->report);
    if (!report.ok()) continue;
    ai::IntegratorSource source;
    source.name = r.name;
    source.url = r.url;
    source.branch = r.branch.empty() ? report->branch : r.branch;
    source.repo = NetworkPathOf(options_.data_dir, r.url);
    source.ref = UpstreamBranchRef(source.branch);
    for (const auto& lib : report->libraries) {
      if (lib.fork != candidate.fork || lib.pinned_sha.empty() || lib.pinned_sha == candidate.candidate_sha) continue;
      notes.push_back("integrator " + r.name + " pins " + lib.name + " at " + Short(lib.pinned_sha) + " (" +
                      ai::PinStateName(lib.state) + "); bump it to the candidate once it is published:\n" +
                      ai::BumpCommands(source, lib, candidate.candidate_sha));
      // The candidate replaces the migration branch: a pin only that branch holds would be dropped.
      if (lib.state == ai::PinState::kCurrent || lib.state == ai::PinState::kBehind)
        notes.push_back("replacing " + candidate.branch + " with the candidate drops " + lib.name + "'s pin " +
                        Short(lib.pinned_sha) +
                        " from the fork (the integrator's fresh checkouts would fail): keep "
                        "it reachable first:\n" +
                        ai::ArchiveCommands(RedactUrl(candidate.fork_url), lib.pinned_sha, clock_.NowS()));
      const IntegratorConfig* in = Configured(r.name);
      if (in == nullptr || in->push_url.empty() || candidate.published_branch.empty()) continue;
      TaskSpec spec;
      spec.kind = TaskKind::kIntegration;
      spec.fork = candidate.fork;
      spec.subject = "bump " + r.name + " " + lib.name + " " + Short(candidate.candidate_sha);
      spec.key = spec.subject;
      spec.run = [this, name = r.name, lib, candidate](TaskContext& ctx) { return RunBump(ctx, name, lib, candidate); };
      (void)runtime_.Submit(std::move(spec));
    }
  }
  return notes;
}

Status IntegrationService::RunBump(TaskContext& ctx, const std::string& name, const ai::LibraryReport& lib,
                                   const storage::CandidateRecord& candidate) {
  storage::IntegratorStore integrators(ctx.store().db());
  FS_ASSIGN_OR_RETURN(auto done, integrators.FindBump(name, lib.path, candidate.candidate_sha));
  if (done) {
    ctx.SetStage("already pushed");
    return Status::Ok();
  }
  const IntegratorConfig* in = Configured(name);
  if (in == nullptr) return FailedPrecondition("integrator '" + name + "' has no push_url configured");
  FS_ASSIGN_OR_RETURN(storage::IntegratorRecord record, integrators.Get(name));
  FS_ASSIGN_OR_RETURN(std::string url, integrators.FetchUrl(name));
  NetworkSyncOptions options;
  options.mirror.data_dir = options_.data_dir;
  options.mirror.allow_foreign_owner = options_.allow_foreign_owner;
  FS_ASSIGN_OR_RETURN(ai::IntegratorSource source, SyncIntegratorSource(name, url, record.branch, false, options));
  ai::BumpRequest request;
  request.integrator = source;
  request.library = lib;
  request.new_sha = candidate.candidate_sha;
  request.fork_url = RedactUrl(candidate.fork_url);
  request.push_url = base::WithUserinfo(in->push_url, in->push_userinfo);
  request.now_s = clock_.NowS();
  storage::IntegratorBumpRecord bump;
  bump.integrator = name;
  bump.path = lib.path;
  bump.fork = candidate.fork;
  bump.new_sha = candidate.candidate_sha;
  bump.pushed_url = RedactUrl(in->push_url);
  bump.created_at = clock_.NowS();
  auto pushed = ai::PushBump(request);
  if (pushed.ok()) {
    bump.commit_sha = pushed->commit;
    bump.branch = pushed->dest_ref.substr(std::string("refs/heads/").size());
    bump.pushed_at = clock_.NowS();
    base::Log(base::LogArea::kIntegration)
        ->info("integrator bump pushed integrator={} library={} sha={} branch={}", name, lib.name,
               Short(candidate.candidate_sha), bump.branch);
  } else {
    bump.error = base::ScrubSecret(pushed.status().message(), in->push_userinfo);
    base::Log(base::LogArea::kIntegration)
        ->warn("integrator bump failed integrator={} library={} error={}", name, lib.name, bump.error);
  }
  FS_RETURN_IF_ERROR(integrators.RecordBump(bump).status());
  if (!pushed.ok()) return Status(pushed.status().code(), bump.error);
  ctx.SetStage("pushed " + bump.branch);
  return Status::Ok();
}

}  // namespace forkscope::server
