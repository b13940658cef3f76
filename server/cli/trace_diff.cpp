// `forkscope trace-diff`: the runtime comparison of the compare stage, from the command line.

#include <fstream>
#include <memory>
#include <sstream>

#include "analyzer/render/report.h"
#include "analyzer/trace/trace_diff.h"
#include "base/log.h"
#include "server/cli/cli.h"
#include "server/config/paths.h"
#include "storage/store.h"

namespace forkscope::server {
namespace {

struct TraceDiffArgs {
  std::string reference;
  std::string migrated;
  std::string analysis_json;
  std::string fork;
  std::string data_dir;
  std::string root;
  std::string rules_path;
  std::string format = "text";
  analyzer::TraceTolerance tolerance;
};

Result<std::optional<analyzer::Analysis>> LoadAnalysisFor(const TraceDiffArgs& a) {
  if (!a.analysis_json.empty()) {
    std::ifstream in(a.analysis_json, std::ios::binary);
    if (!in) return NotFound(a.analysis_json + ": cannot read");
    std::stringstream ss;
    ss << in.rdbuf();
    nlohmann::json doc = nlohmann::json::parse(ss.str(), nullptr, false);
    if (doc.is_discarded()) return InvalidArgument(a.analysis_json + ": not JSON");
    FS_ASSIGN_OR_RETURN(analyzer::Analysis analysis, analyzer::AnalysisFromJson(doc));
    return std::optional<analyzer::Analysis>(std::move(analysis));
  }
  if (a.fork.empty()) return std::optional<analyzer::Analysis>();
  FS_ASSIGN_OR_RETURN(auto store,
                      storage::Store::Open(DatabasePath(a.data_dir.empty() ? DefaultDataDir() : a.data_dir)));
  FS_ASSIGN_OR_RETURN(storage::ForkRecord fork, store->GetFork(a.fork));
  if (!fork.latest_analysis_id) return FailedPrecondition("fork '" + a.fork + "' has not been analysed yet");
  FS_ASSIGN_OR_RETURN(analyzer::Analysis analysis, store->LoadAnalysis(*fork.latest_analysis_id));
  return std::optional<analyzer::Analysis>(std::move(analysis));
}

int RunTraceDiff(const TraceDiffArgs& a) {
  auto ref = analyzer::LoadTrace(a.reference);
  auto mig = ref.ok() ? analyzer::LoadTrace(a.migrated) : ref;
  auto analysis = mig.ok() ? LoadAnalysisFor(a) : Result<std::optional<analyzer::Analysis>>(mig.status());
  auto rules = a.rules_path.empty() ? analyzer::Rules::LoadDefault() : analyzer::Rules::Load(a.rules_path);
  if (!analysis.ok() || !rules.ok()) {
    base::Log(base::LogArea::kCli)
        ->error("{}", !analysis.ok() ? analysis.status().message() : rules.status().message());
    return kExitError;
  }
  analyzer::TraceDiffResult diff = analyzer::DiffTraces(*ref, *mig, a.tolerance);
  if (diff.divergence) analyzer::AttachLayer(*diff.divergence, *analysis ? &**analysis : nullptr, &*rules, a.root);
  PrintOut(a.format == "json" ? analyzer::TraceDiffToJson(diff).dump(2) : analyzer::RenderTraceDiffText(diff));
  return diff.identical() ? kExitOk : kExitViolations;
}

}  // namespace

Command AddTraceDiffCommand(CLI::App& app) {
  auto args = std::make_shared<TraceDiffArgs>();
  auto* cmd = app.add_subcommand("trace-diff",
                                 "Compare two JSONL op traces (reference, migrated) and report the "
                                 "first divergence and its layer (exit 0 same, 1 diverged, 2 error)");
  auto& a = *args;
  cmd->add_option("reference", a.reference, "Trace of the reference (upstream) run")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("migrated", a.migrated, "Trace of the migrated run")->required()->check(CLI::ExistingFile);
  auto* json_opt = cmd->add_option("--analysis-json", a.analysis_json,
                                   "Analysis JSON (forkscope analyze --format json) giving the files' layers");
  auto* fork_opt = cmd->add_option("--fork", a.fork, "Registered fork whose latest analysis gives the layers");
  json_opt->excludes(fork_opt);
  cmd->add_option("--data-dir", a.data_dir, "Data directory holding the database (with --fork)");
  cmd->add_option("--root", a.root, "Prefix stripped from call-site paths (the work tree the traces came from)");
  cmd->add_option("--rules", a.rules_path, "Rules file for layers of files the analysis does not list");
  cmd->add_option("--atol", a.tolerance.atol, "Absolute tolerance when a record states none")->capture_default_str();
  cmd->add_option("--rtol", a.tolerance.rtol, "Relative tolerance when a record states none")->capture_default_str();
  cmd->add_option("--format", a.format, "Output: text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  return {cmd, [args] { return RunTraceDiff(*args); }};
}

}  // namespace forkscope::server
