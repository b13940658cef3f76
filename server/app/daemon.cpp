#include "server/app/daemon.h"

#include <signal.h>

#include <filesystem>
#include <fstream>

#include "base/log.h"
#include "base/memory.h"
#include "base/threads.h"
#include "server/api/routes.h"
#include "server/app/data_dir_lock.h"
#include "server/app/demo.h"
#include "server/app/exit_codes.h"
#include "server/app/job_setup.h"
#include "server/app/pipeline.h"
#include "server/config/paths.h"
#include "server/http/http_server.h"
#include "server/http/static_files.h"
#include "server/services/alerts.h"
#include "server/services/carry_service.h"
#include "server/services/drift_service.h"
#include "server/services/pattern_service.h"
#include "server/services/scheduler.h"
#include "server/services/sync_service.h"
#include "server/services/webhooks.h"
#include "storage/db.h"

namespace forkscope::server {

Status ReconcileForks(const std::string& database, const std::vector<ForkConfig>& forks) {
  FS_ASSIGN_OR_RETURN(auto store, storage::Store::Open(database));
  // All or nothing: a fork the store refuses leaves none of the others half-registered.
  storage::Transaction tx(store->db());
  FS_RETURN_IF_ERROR(tx.status());
  for (const auto& fc : forks) {
    storage::ForkRecord rec;
    auto existing = store->GetFork(fc.name);
    if (existing.ok()) rec = *existing;
    rec.name = fc.name;
    rec.fork_url = fc.fork_url;
    rec.branch = fc.branch;
    rec.upstream_url = fc.upstream_url;
    rec.upstream_branch = fc.upstream_branch;
    rec.base = fc.base;
    rec.sync_interval_s = fc.sync_interval_s;
    rec.labels = fc.labels;
    if (existing.ok()) {
      FS_RETURN_IF_ERROR(store->UpdateFork(rec).status());
    } else {
      FS_RETURN_IF_ERROR(store->CreateFork(rec).status());
    }
  }
  return tx.Commit();
}

namespace {

// The data directory, created and locked before anything is written into it.
Result<DataDirLock> LockDataDir(Config& c) {
  if (c.data_dir.empty()) c.data_dir = DefaultDataDir();
  std::error_code ec;
  std::filesystem::create_directories(c.data_dir, ec);
  if (ec)
    return Unavailable("cannot create data directory " + c.data_dir + ": " + ec.message() +
                       " (make its parent writable by this user, or choose another --data-dir)");
  if (c.database.empty()) c.database = DatabasePath(c.data_dir);
  return DataDirLock::Acquire(c.data_dir, c.database);
}

Status PrepareConfig(ServeOptions& options) {
  Config& c = options.config;
  FS_ASSIGN_OR_RETURN(c.http.web_dir, FindWebDir(c.http.web_dir));
  if (c.http.web_dir.empty())
    base::Log(base::LogArea::kApp)->warn("dashboard assets not found (make build, or --web-dir); serving the API only");
  if (options.demo) {
    FS_ASSIGN_OR_RETURN(auto demo, CreateDemoRepositories(c.data_dir));
    FS_ASSIGN_OR_RETURN(IntegratorConfig integrator, CreateDemoIntegrator(c.data_dir, demo));
    for (auto& f : demo) {
      bool configured = false;
      for (const auto& existing : c.forks) configured = configured || existing.name == f.name;
      if (!configured) c.forks.push_back(std::move(f));
    }
    bool configured = false;
    for (const auto& existing : c.integrators) configured = configured || existing.name == integrator.name;
    if (!configured) c.integrators.push_back(std::move(integrator));
  }
  return Status::Ok();
}

CarryServiceOptions CarryOptionsFromConfig(const Config& c, storage::StoreOpener& stores) {
  CarryServiceOptions o;
  o.data_dir = c.data_dir;
  o.stores = &stores;
  o.after_sync = c.carry.after_sync;
  o.strategy = analyzer::CarryStrategyFromName(c.carry.strategy).value_or(analyzer::CarryStrategy::kRebase);
  o.committer_name = c.carry.committer_name;
  o.committer_email = c.carry.committer_email;
  for (const auto& fork : c.forks)
    if (!fork.push_url.empty())
      o.publish[fork.name] = PublishTarget{fork.fork_url, fork.upstream_url, fork.push_url, fork.push_userinfo};
  return o;
}

TaskRuntimeOptions RuntimeOptionsFromConfig(const Config& c) {
  TaskRuntimeOptions o;
  o.limits[TaskKind::kSync] = c.workers;
  o.limits[TaskKind::kJob] = c.jobs.workers;
  o.limits[TaskKind::kDelivery] = 4;  // the sweep and three targets at once
  return o;
}

// The daemon's objects, built in dependency order and destroyed in reverse; Stop() ends every task
// before anything is destroyed.
struct Daemon {
  Daemon(const Config& c, const analyzer::Rules& rules, base::Clock& clock)
      : config(c),
        clock(clock),
        stores(c.database, clock),
        runtime(RuntimeOptionsFromConfig(c), stores, clock),
        alerts(AlertOptionsFromConfig(c), clock),
        delivery({&stores, c.webhooks, c.alerts.delivery, &runtime}, clock),
        patterns({c.data_dir, &stores, c.security.allow_foreign_owner, &clock}, rules, runtime),
        sync(SyncOptions{c.data_dir, &stores, c.security.allow_foreign_owner, {}}, rules, runtime, clock),
        carry(CarryOptionsFromConfig(c, stores), rules, runtime, clock),
        integrations({c.data_dir, &stores, c.security.allow_foreign_owner, c.integrators, c.scheduler}, rules, runtime,
                     alerts, clock),
        scheduler({&stores, 10, c.sync_backoff_max_s, c.sync_timeout_s, 0}, clock, sync, alerts, runtime) {}

  const Config& config;
  base::Clock& clock;
  storage::FileStoreOpener stores;
  TaskRuntime runtime;
  AlertEngine alerts;
  DeliveryWorker delivery;
  PatternService patterns;
  SyncService sync;
  CarryService carry;
  IntegrationService integrations;
  Scheduler scheduler;
  std::unique_ptr<JobService> jobs;

  // Everything that can refuse the configuration (recipes) is built here, before anything is written.
  Status Wire(const analyzer::Rules& rules);
  Status Start();
  // Every task stops on any exit once Start() was called.
  void Stop();
};

Status Daemon::Wire(const analyzer::Rules& rules) {
  alerts.SetDeliveryNotifier([this] { delivery.Wake(); });
  FS_ASSIGN_OR_RETURN(jobs, CreateJobService(config, rules, stores, runtime));
  WirePipeline(sync, PipelineServices{clock, scheduler, alerts, patterns, *jobs, carry, integrations});
  return Status::Ok();
}

Status Daemon::Start() {
  FS_RETURN_IF_ERROR(runtime.Start());
  FS_RETURN_IF_ERROR(sync.Start());
  FS_RETURN_IF_ERROR(patterns.Start());
  FS_RETURN_IF_ERROR(jobs->Start());
  FS_RETURN_IF_ERROR(carry.Start());
  FS_RETURN_IF_ERROR(integrations.Start());
  FS_RETURN_IF_ERROR(delivery.Start());
  if (config.scheduler) FS_RETURN_IF_ERROR(scheduler.Start());
  return Status::Ok();
}

void Daemon::Stop() {
  scheduler.Stop();
  delivery.Stop();
  runtime.Shutdown();
}

// Serves until SIGTERM/SIGINT (blocked by the caller before any thread started).
void ServeUntilSignalled(HttpServer& http, const sigset_t& signals) {
  base::SignalWatcher watcher(signals, [&http](int sig) {
    base::Log(base::LogArea::kApp)->info("signal={} stopping", sig == SIGTERM ? "SIGTERM" : "SIGINT");
    http.Stop();
  });
  http.Serve();
}

int Fail(const std::string& what, const Status& st) {
  base::Log(base::LogArea::kApp)->error("{}: {}", what, st.message());
  return kExitError;
}

int Serve(const ServeOptions& options, const analyzer::Rules& rules, const sigset_t& signals) {
  const Config& c = options.config;
  Daemon daemon(c, rules, base::SystemClock());
  // Everything that can refuse the configuration (recipes) is checked before the registry is written.
  if (Status st = daemon.Wire(rules); !st.ok()) return Fail("jobs", st);
  ServerContext ctx(c, rules, daemon.stores, daemon.clock);
  ctx.tasks = &daemon.runtime;
  ctx.sync = &daemon.sync;
  ctx.alerts = &daemon.alerts;
  ctx.jobs = daemon.jobs.get();
  ctx.patterns = &daemon.patterns;
  ctx.carry = &daemon.carry;
  ctx.integrations = &daemon.integrations;
  ctx.responses.SetLimits({c.http.response_cache_bytes, ResponseCacheLimits{}.max_entries});
  HttpServer http(ctx, InstallApiRoutes);
  // The port first: a start that cannot listen writes nothing (connections wait until Serve).
  auto port = http.Bind();
  if (!port.ok()) return Fail("listen", port.status());
  if (Status st = ReconcileForks(c.database, c.forks); !st.ok()) return Fail("start-up", st);
  if (Status st = daemon.Start(); !st.ok()) {
    daemon.Stop();
    return Fail("start-up", st);
  }
  std::string host = c.http.listen.substr(0, c.http.listen.rfind(':'));
  base::Log(base::LogArea::kApp)
      ->info("listening url=http://{}:{} data_dir={} database={}", host, *port, c.data_dir, c.database);
  if (!options.port_file.empty()) std::ofstream(options.port_file) << *port << "\n";
  if (Status st = SyncForksMissingData(daemon.stores, daemon.sync); !st.ok())
    base::Log(base::LogArea::kApp)->warn("start-up syncs: {}", st.message());
  ServeUntilSignalled(http, signals);
  daemon.Stop();
  base::Log(base::LogArea::kApp)->info("stopped");
  return kExitOk;
}

}  // namespace

int RunDaemon(ServeOptions options) {
  base::BoundHeapRetention();
  // Signals are taken by one thread with sigwait: block them before any thread starts.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  auto lock = LockDataDir(options.config);
  if (!lock.ok()) return Fail("start-up", lock.status());
  if (Status st = PrepareConfig(options); !st.ok()) return Fail("start-up", st);
  const Config& c = options.config;
  auto rules = c.rules.empty() ? analyzer::Rules::LoadDefault() : analyzer::Rules::Load(c.rules);
  if (!rules.ok()) return Fail("rules", rules.status());
  return Serve(options, *rules, signals);
}

}  // namespace forkscope::server
