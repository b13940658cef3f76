// `forkscope drift`: the one-shot drift report of a fork against upstream. Runs the analysis first
// (answered from the database when the commits were analysed before), then measures the drift; the
// report is printed, not stored (the daemon keeps the history of registered forks).

#include <filesystem>
#include <memory>

#include "analyzer/model/drift_json.h"
#include "analyzer/render/drift_render.h"
#include "base/log.h"
#include "server/cli/cli.h"
#include "server/cli/progress.h"
#include "server/config/paths.h"
#include "server/services/analysis_service.h"
#include "server/services/drift_service.h"

namespace forkscope::server {
namespace {

struct DriftArgs {
  analyzer::AnalyzeRequest request;
  std::string format = "text";
  std::string rules_path;
  analyzer::DriftOptions options;
};

Result<analyzer::DriftReport> MeasureDrift(DriftArgs& args) {
  auto& req = args.request;
  FS_ASSIGN_OR_RETURN(analyzer::Rules rules, args.rules_path.empty() ? analyzer::Rules::LoadDefault()
                                                                     : analyzer::Rules::Load(args.rules_path));
  FS_ASSIGN_OR_RETURN(AnalysisOutcome outcome, AnalyseForCommand(req, rules));
  return DriftOfOutcome(outcome, req.fork_location, base::SystemClock().NowS(), args.options);
}

int RunDrift(DriftArgs& args) {
  auto report = MeasureDrift(args);
  if (!report.ok()) {
    base::Log(base::LogArea::kCli)->error("{}", report.status().message());
    return kExitError;
  }
  if (args.format == "json")
    PrintOut(analyzer::DriftToJson(*report).dump(2));
  else if (args.format == "markdown")
    PrintOut(analyzer::RenderDriftMarkdown(*report));
  else
    PrintOut(analyzer::RenderDriftText(*report));
  return kExitOk;
}

}  // namespace

Command AddDriftCommand(CLI::App& app) {
  auto args = std::make_shared<DriftArgs>();
  auto* cmd = app.add_subcommand(
      "drift",
      "How far upstream has moved since the fork: behind/ahead, merge-base age, upstream commits touching "
      "patched files, predicted conflicts, redundant hunks");
  auto& r = args->request;
  cmd->add_option("--fork", r.fork_location, "Fork repository: URL (https://, ssh://, file://) or local path")
      ->required();
  cmd->add_option("--branch", r.branch, "Migration branch (default: 'paddle', else the fork's default branch)");
  cmd->add_option("--upstream", r.upstream_location, "Upstream repository: URL or local path")->required();
  cmd->add_option("--upstream-branch", r.upstream_branch,
                  "Upstream branch, or 'auto' for the branch the fork was cut from (default: upstream HEAD)");
  cmd->add_option("--base", r.base,
                  "Measure drift from this upstream revision instead of the merge-base; 'auto' searches upstream "
                  "history for the commit a re-imported fork (no shared history) was taken from");
  cmd->add_option("--base-search-limit", r.base_search_limit, "Commits scanned by --base auto")->capture_default_str();
  cmd->add_option("--data-dir", r.data_dir,
                  "Mirrors and database live here (default: $FORKSCOPE_DATA_DIR or "
                  "~/.local/share/forkscope)");
  cmd->add_option("--format", args->format, "Output: text, json or markdown")
      ->check(CLI::IsMember({"text", "json", "markdown"}))
      ->capture_default_str();
  cmd->add_option("--rules", args->rules_path, "Rules file (default: the shipped default_rules.json)");
  cmd->add_flag(
      "--no-fetch", [args](int64_t) { args->request.fetch = false; }, "Use existing mirrors as they are");
  cmd->add_flag("--allow-foreign-owner", r.allow_foreign_owner,
                "Open repositories owned by another user (libgit2 refuses them by default)");
  cmd->add_option("--max-commits", args->options.max_commits,
                  "Upstream commits since the merge-base scanned for files the fork patched")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  return {cmd, [args] { return RunDrift(*args); }};
}

}  // namespace forkscope::server
