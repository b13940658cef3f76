#include "server/daemon.h"

#include <signal.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "server/cli.h"
#include "server/demo.h"
#include "server/http_server.h"
#include "server/paths.h"
#include "server/static_files.h"
#include "server/sync_service.h"

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

// Queues a first sync of every fork that has never been analysed.
void SyncUnanalysed(const std::string& database, SyncService& sync) {
  auto store = storage::Store::Open(database);
  if (!store.ok()) return;
  auto forks = (*store)->ListForks();
  if (!forks.ok()) return;
  for (const auto& f : *forks)
    if (!f.latest_analysis_id) (void)sync.EnqueueSync(f);
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
  SyncOptions so{c.data_dir, c.database, c.workers, c.security.allow_foreign_owner, {}};
  SyncService sync(so, *rules);
  if (Status st = sync.Start(); !st.ok()) {
    spdlog::error("database: {}", st.message());
    return kExitError;
  }
  ServerContext ctx{c, *rules, c.database, &sync, {}};
  HttpServer http(ctx);
  auto port = http.Bind();
  if (!port.ok()) {
    spdlog::error("{}", port.status().message());
    sync.Shutdown();
    return kExitError;
  }
  std::string host = c.http.listen.substr(0, c.http.listen.rfind(':'));
  spdlog::info("listening url=http://{}:{} data_dir={} database={}", host, *port, c.data_dir, c.database);
  if (!options.port_file.empty()) std::ofstream(options.port_file) << *port << "\n";
  SyncUnanalysed(c.database, sync);

  std::thread signal_thread([&http, signals] {
    int sig = 0;
    sigwait(&signals, &sig);
    spdlog::info("signal={} stopping", sig == SIGTERM ? "SIGTERM" : "SIGINT");
    http.Stop();
  });
  http.Serve();
  sync.Shutdown();
  // The signal thread is still waiting when the server stopped for another reason.
  pthread_kill(signal_thread.native_handle(), SIGTERM);
  signal_thread.join();
  spdlog::info("stopped");
  return kExitOk;
}

}  // namespace forkscope::server
