#include "server/daemon.h"

#include <signal.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "server/alerts.h"
#include "server/cli.h"
#include "server/demo.h"
#include "server/drift_service.h"
#include "server/http_server.h"
#include "server/job_service.h"
#include "server/paths.h"
#include "server/scheduler.h"
#include "server/pattern_service.h"
#include "server/static_files.h"
#include "server/sync_service.h"
#include "server/webhooks.h"

namespace forkscope::server {

Status ReconcileForks(const std::string& database, const std::vector<ForkConfig>& forks) {
  FS_ASSIGN_OR_RETURN(auto store, storage::Store::Open(database));
  for (const auto& fc : forks) {
    storage::ForkRecord rec;
    auto existing = store->GetFork(fc.name);
    if (existing.ok()) rec = *existing;
    rec.name = fc.name;
    rec.fork_url = fc.fork_url;
    rec.branch = fc.branch;
    rec.upstream_url = fc.upstream_url;
    rec.upstream_branch = fc.upstream_branch;
    rec.sync_interval_s = fc.sync_interval_s;
    rec.labels = fc.labels;
    if (existing.ok()) {
      FS_RETURN_IF_ERROR(store->UpdateFork(rec).status());
    } else {
      FS_RETURN_IF_ERROR(store->CreateFork(rec).status());
    }
  }
  return Status::Ok();
}

namespace {

Status PrepareConfig(ServeOptions& options) {
  Config& c = options.config;
  if (c.data_dir.empty()) c.data_dir = DefaultDataDir();
  std::error_code ec;
  std::filesystem::create_directories(c.data_dir, ec);
  if (ec) return Unavailable("cannot create data directory " + c.data_dir + ": " + ec.message());
  if (c.database.empty()) c.database = DatabasePath(c.data_dir);
  FS_ASSIGN_OR_RETURN(c.http.web_dir, FindWebDir(c.http.web_dir));
  if (c.http.web_dir.empty()) spdlog::warn("dashboard assets not found (make build, or --web-dir); serving the API only");
  if (options.demo) {
    FS_ASSIGN_OR_RETURN(auto demo, CreateDemoRepositories(c.data_dir));
    for (auto& f : demo) {
      bool configured = false;
      for (const auto& existing : c.forks) configured = configured || existing.name == f.name;
      if (!configured) c.forks.push_back(std::move(f));
    }
  }
  return ReconcileForks(c.database, c.forks);
}

}  // namespace

int RunDaemon(ServeOptions options) {
  // Signals are taken by one thread with sigwait: block them before any thread starts.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  if (Status st = PrepareConfig(options); !st.ok()) {
    spdlog::error("start-up: {}", st.message());
    return kExitError;
  }
  const Config& c = options.config;
  auto rules = c.rules.empty() ? analyzer::Rules::LoadDefault() : analyzer::Rules::Load(c.rules);
  if (!rules.ok()) {
    spdlog::error("rules: {}", rules.status().message());
    return kExitError;
  }
  // Alerts and their webhook outbox outlive the sync service, whose hooks (through the scheduler) use them.
  AlertEngine alerts(AlertOptionsFromConfig(c), SystemClock());
  DeliveryWorker delivery({c.database, c.webhooks, c.alerts.delivery}, SystemClock());
  alerts.SetDeliveryNotifier([&delivery] { delivery.Wake(); });
  PatternService patterns({c.data_dir, c.database, c.security.allow_foreign_owner, {}}, *rules);
  SyncOptions so{c.data_dir, c.database, c.workers, c.security.allow_foreign_owner, {}};
  SyncService sync(so, *rules);
  Scheduler scheduler({c.database, 10, c.sync_backoff_max_s, c.sync_timeout_s, 0}, SystemClock(), sync, alerts);
  sync.AddSyncHook(MakeDriftHook(SystemNowSeconds, {},
                                 [&alerts](storage::Store& store, const std::string& fork,
                                           const analyzer::DriftReport& report) {
                                   Status st = alerts.OnDrift(store, fork, report);
                                   if (!st.ok()) spdlog::warn("alerts fork={} error={}", fork, st.message());
                                 }));
  sync.AddSyncHook(patterns.Hook());
  auto jobs = CreateJobService(c, *rules);
  if (!jobs.ok()) {
    spdlog::error("jobs: {}", jobs.status().message());
    return kExitError;
  }
  sync.AddSyncHook((*jobs)->MakeSyncHook());
  (*jobs)->SetOnFinished([&alerts](storage::Store& store, const storage::JobRecord& job) {
    // Cancelled and skipped jobs say nothing about the fork; a lost one counts as a failure.
    bool passed = job.state == storage::JobState::kPassed;
    bool failed = job.state == storage::JobState::kFailed || job.state == storage::JobState::kTimedOut ||
                  job.state == storage::JobState::kLost;
    if (job.fork.empty() || (!passed && !failed)) return;
    Status st = alerts.OnJobResult(store, job.fork, job.sha, passed);
    if (!st.ok()) spdlog::warn("alerts fork={} error={}", job.fork, st.message());
  });
  if (Status st = sync.Start(); !st.ok()) {
    spdlog::error("database: {}", st.message());
    return kExitError;
  }
  // Every service stops on any exit from here on: producers first, the webhook outbox last.
  auto stop_all = [&] {
    scheduler.Stop();
    patterns.Shutdown();
    (*jobs)->Shutdown();
    sync.Shutdown();
    delivery.Stop();
  };
  Status started = patterns.Start();
  if (started.ok()) started = (*jobs)->Start();
  if (started.ok()) started = delivery.Start();
  if (started.ok() && c.scheduler) started = scheduler.Start();
  if (!started.ok()) {
    spdlog::error("start-up: {}", started.message());
    stop_all();
    return kExitError;
  }
  ServerContext ctx;
  ctx.config = c;
  ctx.rules = *rules;
  ctx.database = c.database;
  ctx.sync = &sync;
  ctx.alerts = &alerts;
  ctx.jobs = jobs->get();
  ctx.patterns = &patterns;
  HttpServer http(ctx);
  auto port = http.Bind();
  if (!port.ok()) {
    spdlog::error("{}", port.status().message());
    stop_all();
    return kExitError;
  }
  std::string host = c.http.listen.substr(0, c.http.listen.rfind(':'));
  spdlog::info("listening url=http://{}:{} data_dir={} database={}", host, *port, c.data_dir, c.database);
  if (!options.port_file.empty()) std::ofstream(options.port_file) << *port << "\n";
  if (Status st = SyncForksMissingData(c.database, sync); !st.ok()) spdlog::warn("start-up syncs: {}", st.message());

  std::thread signal_thread([&http, signals] {
    int sig = 0;
    sigwait(&signals, &sig);
    spdlog::info("signal={} stopping", sig == SIGTERM ? "SIGTERM" : "SIGINT");
    http.Stop();
  });
  http.Serve();
  stop_all();
  // The signal thread is still waiting when the server stopped for another reason.
  pthread_kill(signal_thread.native_handle(), SIGTERM);
  signal_thread.join();
  spdlog::info("stopped");
  return kExitOk;
}

}  // namespace forkscope::server
