// `forkscope carry`: replays a fork's migration onto an upstream commit in memory and prints the result.
// The analysis (for the layers of conflicting paths) is answered from the database when the commits
// were analysed before; a clean carry leaves its candidate commit under refs/forks/<fork>/candidates/ in
// the upstream's fork network. Exit 0 clean or up to date, 1 conflict, 2 error.

#include <filesystem>
#include <memory>

#include "analyzer/carry/carry.h"
#include "analyzer/model/carry_json.h"
#include "analyzer/render/carry_render.h"
#include "base/log.h"
#include "server/cli/cli.h"
#include "server/cli/progress.h"
#include "server/config/paths.h"
#include "server/services/analysis_service.h"

namespace forkscope::server {
namespace {

struct CarryArgs {
  analyzer::AnalyzeRequest request;
  analyzer::CarryOptions options;
  std::string strategy = "rebase";
  std::string format = "text";
  std::string rules_path;
  analyzer::CarryRenderOptions render;
};

Result<analyzer::CarryResult> MakeCarry(CarryArgs& args) {
  auto& req = args.request;
  FS_ASSIGN_OR_RETURN(analyzer::Rules rules, args.rules_path.empty() ? analyzer::Rules::LoadDefault()
                                                                     : analyzer::Rules::Load(args.rules_path));
  FS_ASSIGN_OR_RETURN(AnalysisOutcome outcome, AnalyseForCommand(req, rules));
  args.options.strategy = *analyzer::CarryStrategyFromName(args.strategy);
  analyzer::ResolvedPair pair{outcome.fork_mirror, outcome.upstream_mirror, outcome.analysis, outcome.refs};
  return analyzer::CarryAnalysed(pair, outcome.analysis, rules, args.options);
}

int RunCarry(CarryArgs& args) {
  auto result = MakeCarry(args);
  if (!result.ok()) {
    base::Log(base::LogArea::kCli)->error("{}", result.status().message());
    return kExitError;
  }
  if (args.format == "json")
    PrintOut(analyzer::CarryToJson(*result).dump(2));
  else if (args.format == "markdown")
    PrintOut(analyzer::RenderCarryMarkdown(*result, args.render));
  else
    PrintOut(analyzer::RenderCarryText(*result, args.render));
  return result->state == analyzer::CarryState::kConflict ? kExitViolations : kExitOk;
}

}  // namespace

Command AddCarryCommand(CLI::App& app) {
  auto args = std::make_shared<CarryArgs>();
  auto* cmd = app.add_subcommand(
      "carry",
      "Replay the fork's commits onto an upstream commit in memory; a clean result becomes a candidate "
      "commit under refs/forks/<fork>/candidates/ in the fork network (exit 0), a conflict is reported with "
      "its paths, layers and regions (exit 1)");
  auto& r = args->request;
  auto& o = args->options;
  cmd->add_option("--fork", r.fork_location, "Fork repository: URL (https://, ssh://, file://) or local path")
      ->required();
  cmd->add_option("--branch", r.branch, "Migration branch (default: 'paddle', else the fork's default branch)");
  cmd->add_option("--upstream", r.upstream_location, "Upstream repository: URL or local path")->required();
  cmd->add_option("--upstream-branch", r.upstream_branch,
                  "Upstream branch, or 'auto' for the branch the fork was cut from (default: upstream HEAD)");
  cmd->add_option("--onto", o.onto, "Carry onto this upstream revision (default: the upstream branch head)");
  cmd->add_option("--base", r.base,
                  "Where the fork's commits start: an upstream revision for re-imported forks, or 'auto' to search "
                  "upstream history for the commit whose files keep the most of the fork's content (default: "
                  "the merge-base)");
  cmd->add_option("--strategy", args->strategy, "rebase (each fork commit) or squash (the whole fork diff as one)")
      ->check(CLI::IsMember({"rebase", "squash"}))
      ->capture_default_str();
  cmd->add_option("--data-dir", r.data_dir,
                  "Mirrors and database live here (default: $FORKSCOPE_DATA_DIR or "
                  "~/.local/share/forkscope)");
  cmd->add_option("--format", args->format, "Output: text, json or markdown")
      ->check(CLI::IsMember({"text", "json", "markdown"}))
      ->capture_default_str();
  cmd->add_flag("--full", args->render.full,
                "Text and Markdown: every conflict with all its region lines, every commit (default: a summary, "
                "modify/delete conflicts grouped by directory, the first 10 conflicts)");
  cmd->add_option("--committer-name", o.committer_name, "Committer of the replayed commits")->capture_default_str();
  cmd->add_option("--committer-email", o.committer_email, "Committer e-mail of the replayed commits")
      ->capture_default_str();
  cmd->add_flag(
      "--dry-run", [args](int64_t) { args->options.write_ref = false; },
      "Write no candidate ref (the replayed commits are still written as loose objects)");
  cmd->add_flag("--verify-fast-merge", o.verify_fast_merge,
                "Check every fast tree merge against libgit2's full merge (slow; for benchmarks)")
      ->group("");
  cmd->add_option("--rules", args->rules_path, "Rules file (default: the shipped default_rules.json)");
  cmd->add_flag(
      "--no-fetch", [args](int64_t) { args->request.fetch = false; }, "Use existing mirrors as they are");
  cmd->add_flag("--allow-foreign-owner", r.allow_foreign_owner,
                "Open repositories owned by another user (libgit2 refuses them by default)");
  cmd->add_option("--base-search-limit", r.base_search_limit, "Commits scanned by --base auto")->capture_default_str();
  return {cmd, [args] { return RunCarry(*args); }};
}

}  // namespace forkscope::server
