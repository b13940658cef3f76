// `forkscope serve` and `forkscope demo`.

#include <memory>

#include "analyzer/render/drift_render.h"
#include "analyzer/render/report.h"
#include "base/log.h"
#include "server/app/daemon.h"
#include "server/app/demo.h"
#include "server/cli/cli.h"
#include "server/config/paths.h"
#include "server/services/analysis_service.h"
#include "server/services/drift_service.h"

namespace forkscope::server {
namespace {

struct ServeArgs {
  std::string config_path;
  std::string listen;
  std::string data_dir;
  std::string web_dir;
  int workers = 0;
  bool allow_local_repos = false;
  ServeOptions options;
};

int RunServe(ServeArgs& args) {
  Config config;
  if (!args.config_path.empty()) {
    auto loaded = LoadConfigFile(args.config_path);
    if (!loaded.ok()) {
      base::Log(base::LogArea::kApp)->error("{}", loaded.status().message());
      return kExitError;
    }
    config = std::move(*loaded);
  }
  Status st = ApplyEnvironment(config);
  if (!args.listen.empty()) config.http.listen = args.listen;
  if (!args.data_dir.empty()) config.data_dir = args.data_dir;
  if (!args.web_dir.empty()) config.http.web_dir = args.web_dir;
  if (args.workers > 0) config.workers = args.workers;
  if (args.allow_local_repos) config.security.allow_local_repos = true;
  if (st.ok()) st = ValidateConfig(config);
  if (st.ok()) st = CheckForkPolicy(config);
  if (!st.ok()) {
    base::Log(base::LogArea::kApp)->error("config: {}", st.message());
    return kExitError;
  }
  args.options.config = std::move(config);
  return RunDaemon(std::move(args.options));
}

int RunDemo(const std::string& data_dir_flag) {
  std::string data_dir = data_dir_flag.empty() ? DefaultDataDir() : data_dir_flag;
  auto forks = CreateDemoRepositories(data_dir);
  Status st = forks.ok() ? ReconcileForks(DatabasePath(data_dir), *forks) : forks.status();
  if (!st.ok()) {
    base::Log(base::LogArea::kApp)->error("demo: {}", st.message());
    return kExitError;
  }
  auto rules = analyzer::Rules::LoadDefault();
  auto store = storage::Store::Open(DatabasePath(data_dir));
  if (!rules.ok() || !store.ok()) {
    base::Log(base::LogArea::kApp)
        ->error("demo: {}", !rules.ok() ? rules.status().message() : store.status().message());
    return kExitError;
  }
  for (const auto& f : *forks) {
    auto rec = (*store)->GetFork(f.name);
    if (!rec.ok()) {
      base::Log(base::LogArea::kApp)->error("demo {}: {}", f.name, rec.status().message());
      return kExitError;
    }
    auto req = RequestFor(**store, *rec);
    if (!req.ok()) {
      base::Log(base::LogArea::kApp)->error("demo {}: {}", f.name, req.status().message());
      return kExitError;
    }
    req->data_dir = data_dir;
    auto outcome = RunAnalysis(*req, *rules, **store, rec->id);
    if (!outcome.ok()) {
      base::Log(base::LogArea::kApp)->error("demo {}: {}", f.name, outcome.status().message());
      return kExitError;
    }
    PrintOut("== " + f.name + " (" + rec->fork_url + ")\n" + analyzer::RenderText(outcome->analysis));
    auto drift = StoreDriftOfOutcome(**store, f.name, *outcome, base::SystemClock().NowS());
    PrintOut(drift.ok() ? analyzer::RenderDriftText(drift->report) : "drift: " + drift.status().message());
  }
  PrintOut("demo forks registered in " + DatabasePath(data_dir) + "; run `forkscope serve --data-dir " + data_dir +
           "` to browse them");
  return kExitOk;
}

}  // namespace

Command AddServeCommand(CLI::App& app) {
  auto args = std::make_shared<ServeArgs>();
  auto* cmd = app.add_subcommand("serve", "Run the daemon: REST API, dashboard and sync workers");
  cmd->add_option("--config", args->config_path, "TOML configuration (see deploy/forkscope.example.toml)");
  cmd->add_option("--listen", args->listen, "HOST:PORT to listen on (default 127.0.0.1:8080; port 0 = any)");
  cmd->add_option("--data-dir", args->data_dir, "Mirrors and database live here");
  cmd->add_option("--web-dir", args->web_dir, "Dashboard assets (default: the built or installed ones)");
  cmd->add_option("--workers", args->workers, "Parallel syncs (default 2)");
  cmd->add_flag("--allow-local-repos", args->allow_local_repos, "Allow file:// URLs and local paths as forks");
  cmd->add_flag("--demo", args->options.demo, "Create and register the demo forks (no network needed)");
  cmd->add_option("--port-file", args->options.port_file, "Write the bound port to this file once listening");
  return {cmd, [args] { return RunServe(*args); }};
}

Command AddDemoCommand(CLI::App& app) {
  auto data_dir = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("demo",
                                 "Create demo repositories (an upstream and two Paddle forks), register "
                                 "and analyse them");
  cmd->add_option("--data-dir", *data_dir, "Data directory (default: $FORKSCOPE_DATA_DIR or ~/.local/share/forkscope)");
  return {cmd, [data_dir] { return RunDemo(*data_dir); }};
}

}  // namespace forkscope::server
