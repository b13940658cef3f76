// `forkscope integration`: one reading of an integrator (PaddleFleet) against the forks given: each
// submodule's pin state, integration steps, compat guard and scope, and the text to paste for what is
// missing (docs/integration.md). The integrator is fetched as the upstream of its own network, each fork
// into a fork network under DIR/networks (its upstream's when --upstream names one, else its own); the report is
// stored in the database and printed. Exit 1 when a pin is orphaned (a fresh checkout of the
// integrator would fail), 2 on an error.

#include <filesystem>
#include <map>
#include <memory>

#include "analyzer/integration/integration_render.h"
#include "analyzer/integration/integrator.h"
#include "analyzer/integration/integrator_json.h"
#include "analyzer/integration/repo_url.h"
#include "base/clock.h"
#include "base/log.h"
#include "server/cli/cli.h"
#include "server/cli/progress.h"
#include "server/config/config.h"
#include "server/config/paths.h"
#include "server/services/integration_service.h"
#include "storage/integrator_store.h"
#include "storage/store.h"

namespace forkscope::server {
namespace {

namespace ai = analyzer::integration;

struct IntegrationArgs {
  std::string integrator;
  std::string branch;
  std::vector<std::string> forks;      // NAME=URL[@BRANCH]
  std::vector<std::string> upstreams;  // NAME=URL[@BRANCH]
  std::string data_dir;
  std::string format = "text";
  std::string rules_path;
  bool fetch = true;
  bool allow_foreign_owner = false;
};

struct Located {
  std::string name;
  std::string url;
  std::string branch;  // "" = default
};

// NAME=URL[@BRANCH]: the branch follows the last '@' when what precedes it is a whole location (a URL
// with a path, an scp-like host:path, a local path), so user@host URLs keep their '@'.
Result<Located> ParseLocated(const std::string& arg, const char* option) {
  const size_t eq = arg.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == arg.size())
    return InvalidArgument(std::string(option) + " '" + arg + "': expected NAME=URL[@BRANCH]");
  Located l{arg.substr(0, eq), arg.substr(eq + 1), ""};
  const size_t at = l.url.rfind('@');
  if (at != std::string::npos && at > 0 && at + 1 < l.url.size()) {
    const std::string before = l.url.substr(0, at), after = l.url.substr(at + 1);
    const size_t scheme = before.find("://");
    const bool whole = scheme != std::string::npos
                           ? before.find('/', scheme + 3) != std::string::npos
                           : (before.find(':') != std::string::npos || before.find('/') != std::string::npos);
    if (whole && after.find(':') == std::string::npos) {
      l.url = before;
      l.branch = after;
    }
  }
  return l;
}

NetworkSyncOptions SyncOptionsOf(const IntegrationArgs& args) {
  NetworkSyncOptions options;
  options.mirror.data_dir = args.data_dir;
  options.mirror.allow_foreign_owner = args.allow_foreign_owner;
  options.mirror.progress = MakeProgressReporter();
  options.fetch = args.fetch;
  return options;
}

Result<ai::IntegratorReport> Read(IntegrationArgs& args, ai::IntegratorSource& source) {
  if (args.data_dir.empty()) args.data_dir = DefaultDataDir();
  std::error_code ec;
  std::filesystem::create_directories(args.data_dir, ec);
  if (ec) return Unavailable("cannot create data directory " + args.data_dir + ": " + ec.message());
  FS_ASSIGN_OR_RETURN(analyzer::Rules rules, args.rules_path.empty() ? analyzer::Rules::LoadDefault()
                                                                     : analyzer::Rules::Load(args.rules_path));
  std::map<std::string, Located> upstreams;
  for (const auto& u : args.upstreams) {
    FS_ASSIGN_OR_RETURN(Located l, ParseLocated(u, "--upstream"));
    upstreams[l.name] = l;
  }
  std::vector<ai::RegisteredFork> forks;
  for (const auto& a : args.forks) {
    FS_ASSIGN_OR_RETURN(Located l, ParseLocated(a, "--fork"));
    if (std::string why = ForkNameProblem(l.name); !why.empty())
      return InvalidArgument("--fork " + l.name + ": '" + l.name + "' " + why);
    auto up = upstreams.find(l.name);
    const bool has_upstream = up != upstreams.end();
    forks.push_back(SyncForkForIntegration(l.name, l.url, l.branch, has_upstream ? up->second.url : "",
                                           has_upstream ? up->second.branch : "", SyncOptionsOf(args)));
  }
  for (const auto& [name, l] : upstreams) {
    bool known = false;
    for (const auto& f : forks) known = known || f.name == name;
    if (!known) return InvalidArgument("--upstream " + name + ": no --fork " + name);
  }
  FS_RETURN_IF_ERROR(ScopeForks(rules, forks));
  FS_ASSIGN_OR_RETURN(std::string location, NormalizeLocation(args.integrator));
  FS_ASSIGN_OR_RETURN(
      source, SyncIntegratorSource(ai::RepoName(location), location, args.branch, args.fetch, SyncOptionsOf(args)));
  FS_ASSIGN_OR_RETURN(ai::IntegratorReport report, ai::ReadIntegrator(source, forks));

  FS_ASSIGN_OR_RETURN(auto store, storage::Store::Open(DatabasePath(args.data_dir)));
  storage::IntegratorStore integrators(store->db());
  const int64_t now = base::SystemClock().NowS();
  FS_RETURN_IF_ERROR(integrators.Upsert(source.name, source.url, source.branch, "", now).status());
  const ReportCounts counts = CountsOf(report);
  FS_RETURN_IF_ERROR(integrators
                         .SaveReport(source.name, report.head,
                                     analyzer::integration::IntegratorReportToJson(report).dump(), counts.libraries,
                                     counts.orphaned, counts.behind, now)
                         .status());
  return report;
}

int RunIntegration(IntegrationArgs& args) {
  ai::IntegratorSource source;
  auto report = Read(args, source);
  if (!report.ok()) {
    base::Log(base::LogArea::kCli)->error("{}", report.status().message());
    return kExitError;
  }
  for (const auto& n : report->notices) base::Log(base::LogArea::kCli)->info("note: {}", n);
  if (args.format == "json")
    PrintOut(analyzer::integration::IntegratorReportToJson(*report).dump(2));
  else if (args.format == "markdown")
    PrintOut(ai::RenderIntegratorMarkdown(*report));
  else
    PrintOut(ai::RenderIntegratorText(*report));
  for (const auto& lib : report->libraries)
    if (lib.state == ai::PinState::kOrphaned) return kExitViolations;
  return kExitOk;
}

}  // namespace

Command AddIntegrationCommand(CLI::App& app) {
  auto args = std::make_shared<IntegrationArgs>();
  auto* cmd = app.add_subcommand(
      "integration",
      "Read an integrator (PaddleFleet): each submodule's pin against its fork, the integration steps, "
      "the loader's compat guard and scope, and what to paste for what is missing");
  cmd->add_option("--integrator", args->integrator, "Integrator repository: URL or local path")->required();
  cmd->add_option("--branch", args->branch, "Integrator branch (default: its default branch)");
  cmd->add_option("--fork", args->forks,
                  "A fork to match submodules against, NAME=URL[@BRANCH] (branch default: 'paddle', else the "
                  "fork's default branch); repeatable");
  cmd->add_option("--upstream", args->upstreams,
                  "The upstream of fork NAME, NAME=URL[@BRANCH], for how far each pin is behind upstream; repeatable");
  cmd->add_option("--data-dir", args->data_dir,
                  "Mirrors and database live here (default: $FORKSCOPE_DATA_DIR or "
                  "~/.local/share/forkscope)");
  cmd->add_option("--format", args->format, "Output: text, json or markdown")
      ->check(CLI::IsMember({"text", "json", "markdown"}))
      ->capture_default_str();
  cmd->add_option("--rules", args->rules_path, "Rules file (default: the shipped default_rules.json)");
  cmd->add_flag(
      "--no-fetch", [args](int64_t) { args->fetch = false; }, "Use existing fork networks as they are");
  cmd->add_flag("--allow-foreign-owner", args->allow_foreign_owner,
                "Open repositories owned by another user (libgit2 refuses them by default)");
  return {cmd, [args] { return RunIntegration(*args); }};
}

}  // namespace forkscope::server
