// `forkscope check`: the CI gate inside a checkout, no daemon. Prints each finding as
// "path:line  rule  severity: message" and the verdict. Exit 0 pass, 1 a finding at or above
// --fail-on that the baseline does not accept, 2 error. --write-baseline records every current
// finding in the baseline file (.forkscope-baseline.json in the checkout by default) and passes.

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "analyzer/classify/gate.h"
#include "analyzer/diff/analysis.h"
#include "analyzer/render/report.h"
#include "analyzer/render/sarif.h"
#include "base/log.h"
#include "server/cli/cli.h"
#include "server/services/repositories.h"

namespace forkscope::server {
namespace {

struct CheckArgs {
  std::string repo = ".";
  std::string head = "HEAD";
  std::string upstream;
  std::string format = "text";
  std::string rules_path;
  std::string fail_on = "error";
  std::string baseline;  // "" = <repo>/.forkscope-baseline.json, used when present
  bool no_baseline = false;
  bool write_baseline = false;
};

std::string BaselinePath(const CheckArgs& args) {
  return args.baseline.empty() ? args.repo + "/" + analyzer::kBaselineFileName : args.baseline;
}

// Which violations the baseline accepts; empty when no baseline applies. A baseline named with
// --baseline must exist; the default one is used only when present.
Result<std::vector<bool>> ApplyBaseline(const CheckArgs& args, const std::vector<analyzer::Violation>& violations) {
  if (args.no_baseline) return std::vector<bool>{};
  const std::string path = BaselinePath(args);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (args.baseline.empty()) return std::vector<bool>{};
    return NotFound("cannot open baseline " + path);
  }
  std::ostringstream text;
  text << in.rdbuf();
  FS_ASSIGN_OR_RETURN(analyzer::Baseline baseline, analyzer::BaselineFromJson(text.str(), path));
  return analyzer::MatchBaseline(baseline, violations);
}

int WriteBaseline(const CheckArgs& args, const analyzer::Analysis& analysis) {
  const std::string path = BaselinePath(args);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << analyzer::BaselineToJson(analysis.violations).dump(2) << "\n";
  out.close();
  if (!out) {
    base::Log(base::LogArea::kCli)->error("cannot write baseline {}", path);
    return kExitError;
  }
  PrintOut("wrote " + std::to_string(analysis.violations.size()) + " finding(s) to " + path);
  return kExitOk;
}

// The SARIF log quotes the checkout's files at the analysed commit (a path the fork deleted: at the
// base) and names the checkout's origin, else the checkout itself, as the repository analysed.
std::string RenderCheckSarif(const CheckArgs& args, const analyzer::Analysis& analysis,
                             const std::vector<bool>& baselined) {
  std::error_code ec;
  const std::filesystem::path root = std::filesystem::weakly_canonical(std::filesystem::absolute(args.repo, ec), ec);
  const std::string git_dir = std::filesystem::exists(root / ".git", ec) ? (root / ".git").string() : root.string();
  auto files = RevisionFiles::Open(git_dir);
  analyzer::SarifSource source;
  source.checkout_uri = "file://" + root.string() + (root.string().back() == '/' ? "" : "/");
  source.repository_uri = "file://" + root.string();
  if (files.ok()) {
    const RevisionFiles* reader = files->get();
    if (std::string origin = analyzer::SarifRepositoryUri(reader->OriginUrl()); !origin.empty())
      source.repository_uri = origin;
    source.file_text = [reader, &analysis](const std::string& path) {
      auto text = reader->Text(analysis.fork.sha, path);
      return text || analysis.merge_base.empty() ? text : reader->Text(analysis.merge_base, path);
    };
  }
  return analyzer::RenderSarif(analysis, baselined, source).dump(2);
}

void PrintReport(const CheckArgs& args, const analyzer::Analysis& analysis, const std::vector<bool>& baselined,
                 const analyzer::GateVerdict& verdict) {
  if (args.format == "sarif") return PrintOut(RenderCheckSarif(args, analysis, baselined));
  if (args.format == "json") {
    auto j = analyzer::AnalysisToJson(analysis);
    j["verdict"] = verdict.pass ? "pass" : "fail";
    j["gate"] = analyzer::GateToJson(verdict);
    for (size_t i = 0; i < baselined.size() && i < j["violations"].size(); ++i)
      j["violations"][i]["baselined"] = static_cast<bool>(baselined[i]);
    return PrintOut(j.dump(2));
  }
  std::string findings = analyzer::RenderFindingsText(analysis, baselined);
  PrintOut(analyzer::RenderTextSummary(analysis) + "findings:\n" + (findings.empty() ? "none\n" : findings) +
           "verdict: " + analyzer::GateSummary(verdict));
}

int RunCheck(const CheckArgs& args) {
  auto rules = args.rules_path.empty() ? analyzer::Rules::LoadDefault() : analyzer::Rules::Load(args.rules_path);
  if (!rules.ok()) {
    base::Log(base::LogArea::kCli)->error("rules: {}", rules.status().message());
    return kExitError;
  }
  auto pair = analyzer::ResolveLocal(args.repo, args.head, args.upstream);
  if (!pair.ok()) {
    base::Log(base::LogArea::kCli)->error("{}", pair.status().message());
    return kExitError;
  }
  auto analysis = analyzer::AnalyzeResolved(*pair, *rules, {});
  if (!analysis.ok()) {
    base::Log(base::LogArea::kCli)->error("{}", analysis.status().message());
    return kExitError;
  }
  // Fails closed: a file too large to lint is a finding (and never baselined).
  analyzer::AddUncheckedFileFindings(*analysis);
  if (args.write_baseline) return WriteBaseline(args, *analysis);
  auto baselined = ApplyBaseline(args, analysis->violations);
  if (!baselined.ok()) {
    base::Log(base::LogArea::kCli)->error("{}", baselined.status().message());
    return kExitError;
  }
  const auto fail_on = analyzer::SeverityFromName(args.fail_on).value_or(analyzer::Severity::kError);
  const analyzer::GateVerdict verdict = analyzer::EvaluateGate(analysis->violations, fail_on, *baselined);
  PrintReport(args, *analysis, *baselined, verdict);
  return verdict.pass ? kExitOk : kExitViolations;
}

}  // namespace

Command AddCheckCommand(CLI::App& app) {
  auto args = std::make_shared<CheckArgs>();
  auto* cmd = app.add_subcommand("check",
                                 "CI gate in a checkout: analyse HEAD against upstream, list the findings and "
                                 "fail on new ones at --fail-on or above (exit 0 pass, 1 fail, 2 error)");
  cmd->add_option("--upstream", args->upstream, "Upstream revision in the checkout, e.g. upstream/main")->required();
  cmd->add_option("--head", args->head, "Fork revision to check")->capture_default_str();
  cmd->add_option("--repo", args->repo, "The checkout")->capture_default_str();
  cmd->add_option("--format", args->format, "text, json or sarif")
      ->check(CLI::IsMember({"text", "json", "sarif"}))
      ->capture_default_str();
  cmd->add_option("--rules", args->rules_path, "Rules file (default: the shipped default_rules.json)");
  cmd->add_option("--fail-on", args->fail_on, "Least severe finding that fails: error, warning or note")
      ->check(CLI::IsMember({"error", "warning", "note"}))
      ->capture_default_str();
  auto* baseline = cmd->add_option("--baseline", args->baseline,
                                   "Baseline of accepted findings (default: .forkscope-baseline.json in --repo, "
                                   "when present)");
  cmd->add_flag("--no-baseline", args->no_baseline, "Ignore any baseline: every finding counts")->excludes(baseline);
  cmd->add_flag("--write-baseline", args->write_baseline,
                "Write every current finding to the baseline file and pass (accepts the fork's known findings)");
  return {cmd, [args] { return RunCheck(*args); }};
}

}  // namespace forkscope::server
