// `forkscope check`: the CI gate inside a checkout, no daemon. Exit 0 pass, 1 violations, 2 error.
#include <spdlog/spdlog.h>

#include <memory>

#include "analyzer/diff/analysis.h"
#include "analyzer/render/report.h"
#include "analyzer/render/sarif.h"
#include "server/cli/cli.h"

namespace forkscope::server {
namespace {

struct CheckArgs {
  std::string repo = ".";
  std::string head = "HEAD";
  std::string upstream;
  std::string format = "text";
  std::string rules_path;
};

int RunCheck(const CheckArgs& args) {
  auto rules = args.rules_path.empty() ? analyzer::Rules::LoadDefault() : analyzer::Rules::Load(args.rules_path);
  if (!rules.ok()) {
    spdlog::error("rules: {}", rules.status().message());
    return kExitError;
  }
  auto pair = analyzer::ResolveLocal(args.repo, args.head, args.upstream);
  if (!pair.ok()) {
    spdlog::error("{}", pair.status().message());
    return kExitError;
  }
  auto analysis = analyzer::AnalyzeResolved(*pair, *rules, {});
  if (!analysis.ok()) {
    spdlog::error("{}", analysis.status().message());
    return kExitError;
  }
  bool pass = analysis->violations.empty();
  if (args.format == "sarif") {
    PrintOut(analyzer::RenderSarif(*analysis).dump(2));
  } else if (args.format == "json") {
    auto j = analyzer::AnalysisToJson(*analysis);
    j["verdict"] = pass ? "pass" : "fail";
    PrintOut(j.dump(2));
  } else {
    PrintOut(analyzer::RenderText(*analysis) + (pass ? "verdict: pass" : "verdict: fail"));
  }
  return pass ? kExitOk : kExitViolations;
}

}  // namespace

Command AddCheckCommand(CLI::App& app) {
  auto args = std::make_shared<CheckArgs>();
  auto* cmd = app.add_subcommand("check", "CI gate in a checkout: analyse HEAD against upstream, fail on violations "
                                          "(exit 0 pass, 1 violations, 2 error)");
  cmd->add_option("--upstream", args->upstream, "Upstream revision in the checkout, e.g. upstream/main")->required();
  cmd->add_option("--head", args->head, "Fork revision to check")->capture_default_str();
  cmd->add_option("--repo", args->repo, "The checkout")->capture_default_str();
  cmd->add_option("--format", args->format, "text, json or sarif")
      ->check(CLI::IsMember({"text", "json", "sarif"}))
      ->capture_default_str();
  cmd->add_option("--rules", args->rules_path, "Rules file (default: the shipped default_rules.json)");
  return {cmd, [args] { return RunCheck(*args); }};
}

}  // namespace forkscope::server
