// `forkscope analyze`: one analysis from the command line, answered from the database when cached.

#include <filesystem>
#include <memory>

#include "analyzer/render/report.h"
#include "base/log.h"
#include "server/cli/cli.h"
#include "server/cli/progress.h"
#include "server/config/paths.h"
#include "server/services/analysis_service.h"

namespace forkscope::server {
namespace {

struct AnalyzeArgs {
  analyzer::AnalyzeRequest request;
  std::string format = "text";
  std::string rules_path;
  bool with_lines = false;
};

int RunAnalyze(AnalyzeArgs& args) {
  auto& req = args.request;
  if (req.data_dir.empty()) req.data_dir = DefaultDataDir();
  std::error_code ec;
  std::filesystem::create_directories(req.data_dir, ec);
  if (ec) {
    base::Log(base::LogArea::kCli)->error("cannot create data directory {}: {}", req.data_dir, ec.message());
    return kExitError;
  }
  auto rules = args.rules_path.empty() ? analyzer::Rules::LoadDefault() : analyzer::Rules::Load(args.rules_path);
  if (!rules.ok()) {
    base::Log(base::LogArea::kCli)->error("rules: {}", rules.status().message());
    return kExitError;
  }
  auto store = storage::Store::Open(DatabasePath(req.data_dir));
  if (!store.ok()) {
    base::Log(base::LogArea::kCli)->error("database: {}", store.status().message());
    return kExitError;
  }
  req.progress = MakeProgressReporter();
  auto outcome = RunAnalysis(req, *rules, **store);
  if (!outcome.ok()) {
    base::Log(base::LogArea::kCli)->error("{}", outcome.status().message());
    return kExitError;
  }
  const analyzer::Analysis& a = outcome->analysis;
  for (const auto& n : a.notices) base::Log(base::LogArea::kCli)->info("note: {}", n);
  if (args.format == "json") {
    analyzer::Analysis full = a;
    if (args.with_lines) {
      auto loaded = (*store)->LoadAnalysis(outcome->analysis_id, true);
      if (loaded.ok()) {
        bool cached = a.cached;
        full = std::move(*loaded);
        full.cached = cached;
        full.fork = a.fork;
        full.upstream = a.upstream;
      }
    }
    PrintOut(analyzer::AnalysisToJson(full, args.with_lines).dump(2));
  } else if (args.format == "markdown") {
    PrintOut(analyzer::RenderMarkdown(a));
  } else {
    PrintOut(analyzer::RenderText(a));
  }
  return kExitOk;
}

}  // namespace

Command AddAnalyzeCommand(CLI::App& app) {
  auto args = std::make_shared<AnalyzeArgs>();
  auto* cmd = app.add_subcommand("analyze", "Diff a fork's migration branch against upstream and classify it");
  auto& r = args->request;
  cmd->add_option("--fork", r.fork_location, "Fork repository: URL (https://, ssh://, file://) or local path")
      ->required();
  cmd->add_option("--branch", r.branch, "Migration branch (default: 'paddle', else the fork's default branch)");
  cmd->add_option("--upstream", r.upstream_location, "Upstream repository: URL or local path")->required();
  cmd->add_option("--upstream-branch", r.upstream_branch,
                  "Upstream branch, or 'auto' for the branch the fork was cut from (default: upstream HEAD)");
  cmd->add_option("--base", r.base,
                  "Diff against this upstream revision instead of the merge-base; 'auto' searches upstream "
                  "history for the commit whose files keep the most of the fork's content (for unrelated "
                  "histories: a re-imported fork)");
  cmd->add_option("--head", r.head, "Analyse this fork revision instead of the branch head");
  cmd->add_option("--data-dir", r.data_dir,
                  "Mirrors and database live here (default: $FORKSCOPE_DATA_DIR or "
                  "~/.local/share/forkscope)");
  cmd->add_option("--format", args->format, "Output: text, json or markdown")
      ->check(CLI::IsMember({"text", "json", "markdown"}))
      ->capture_default_str();
  cmd->add_flag("--lines", args->with_lines, "Include hunk lines in JSON output");
  cmd->add_option("--rules", args->rules_path, "Rules file (default: the shipped default_rules.json)");
  cmd->add_flag(
      "--no-fetch", [args](int64_t) { args->request.fetch = false; }, "Use existing mirrors as they are");
  cmd->add_flag("--allow-foreign-owner", r.allow_foreign_owner,
                "Open repositories owned by another user (libgit2 refuses them by default)");
  cmd->add_option("--rename-limit", r.diff.rename_limit,
                  "As git's -l: inexact rename detection only while the added x deleted files left after exact "
                  "and same-name matching are <= limit^2")
      ->capture_default_str();
  cmd->add_option("--base-search-limit", r.base_search_limit, "Commits scanned by --base auto")->capture_default_str();
  return {cmd, [args] { return RunAnalyze(*args); }};
}

}  // namespace forkscope::server
