// `forkscope patterns` (the pattern catalogue, mined first) and `forkscope plan` (a migration plan
// for a library without a Paddle fork), both over the database of a data directory.

#include <chrono>
#include <filesystem>
#include <memory>

#include "analyzer/classify/rules_data.h"

#include "base/clock.h"
#include "base/log.h"
#include "server/cli/cli.h"
#include "server/codec/pattern_json.h"
#include "server/config/paths.h"
#include "server/services/pattern_catalogue.h"
#include "server/services/pattern_service.h"

namespace forkscope::server {
namespace {

struct CommonArgs {
  std::string data_dir;
  std::string rules_path;
  std::string format;
};

// Rules and store of the data directory, or nullopt after logging why not.
struct Opened {
  analyzer::Rules rules;
  std::unique_ptr<storage::Store> store;
};

std::optional<Opened> Open(CommonArgs& args) {
  if (args.data_dir.empty()) args.data_dir = DefaultDataDir();
  std::error_code ec;
  std::filesystem::create_directories(args.data_dir, ec);
  if (ec) {
    base::Log(base::LogArea::kCli)->error("cannot create data directory {}: {}", args.data_dir, ec.message());
    return std::nullopt;
  }
  auto rules = args.rules_path.empty() ? analyzer::Rules::LoadDefault() : analyzer::Rules::Load(args.rules_path);
  if (!rules.ok()) {
    base::Log(base::LogArea::kCli)->error("rules: {}", rules.status().message());
    return std::nullopt;
  }
  auto store = storage::Store::Open(DatabasePath(args.data_dir));
  if (!store.ok()) {
    base::Log(base::LogArea::kCli)->error("database: {}", store.status().message());
    return std::nullopt;
  }
  auto mined = MinePatterns(**store, base::SystemClock(), rules->data().mining);
  if (!mined.ok()) {
    base::Log(base::LogArea::kCli)->error("pattern mining: {}", mined.status().message());
    return std::nullopt;
  }
  return Opened{std::move(*rules), std::move(*store)};
}

struct PatternsArgs {
  CommonArgs common{"", "", "text"};
  std::string layer;
  int min_forks = -1;
  std::string kind;
};

int RunPatterns(PatternsArgs& args) {
  storage::PatternFilter filter;
  filter.layer = args.layer;
  if (!args.layer.empty() && !analyzer::LayerFromName(args.layer)) {
    base::Log(base::LogArea::kCli)->error("unknown layer '{}'", args.layer);
    return kExitError;
  }
  if (args.min_forks >= 0) filter.min_forks = args.min_forks;
  if (!args.kind.empty())
    filter.kind = args.kind == "mined" ? storage::PatternKind::kMined : storage::PatternKind::kNamed;
  auto opened = Open(args.common);
  if (!opened) return kExitError;
  auto patterns = ListCatalogue(*opened->store, base::SystemClock(), filter);
  if (!patterns.ok()) {
    base::Log(base::LogArea::kCli)->error("{}", patterns.status().message());
    return kExitError;
  }
  PrintOut(args.common.format == "json" ? PatternListToJson(*patterns).dump(2) : RenderPatternsText(*patterns));
  return kExitOk;
}

struct PlanArgs {
  CommonArgs common{"", "", "markdown"};
  std::string upstream;
  std::string branch;
  bool allow_foreign_owner = false;
};

int RunPlan(PlanArgs& args) {
  auto opened = Open(args.common);
  if (!opened) return kExitError;
  PlanRequest request{args.upstream, args.branch, args.common.data_dir, args.allow_foreign_owner, {}};
  auto plan = BuildPlan(request, opened->rules, *opened->store);
  if (!plan.ok()) {
    base::Log(base::LogArea::kCli)->error("{}", plan.status().message());
    return kExitError;
  }
  PrintOut(args.common.format == "json" ? analyzer::PlanToJson(*plan).dump(2) : analyzer::PlanToMarkdown(*plan));
  return kExitOk;
}

void AddCommonOptions(CLI::App* cmd, CommonArgs& args) {
  cmd->add_option("--data-dir", args.data_dir,
                  "The data directory whose database holds the analysed forks "
                  "(default: $FORKSCOPE_DATA_DIR or ~/.local/share/forkscope)");
  cmd->add_option("--rules", args.rules_path, "Rules file (default: the shipped default_rules.json)");
}

}  // namespace

Command AddPatternsCommand(CLI::App& app) {
  auto args = std::make_shared<PatternsArgs>();
  auto* cmd = app.add_subcommand("patterns",
                                 "List the reusable migration patterns across the analysed forks: named "
                                 "(rules) and mined (similar hunks grouped); mines new analyses first");
  AddCommonOptions(cmd, args->common);
  cmd->add_option("--layer", args->layer, "Only patterns of this layer (kernel, build, cpp_compat, python, other)");
  cmd->add_option("--min-forks", args->min_forks,
                  "Only patterns seen in at least N forks (default: 1 for named, 2 for mined)");
  cmd->add_option("--kind", args->kind, "named or mined")->check(CLI::IsMember({"named", "mined"}));
  cmd->add_option("--format", args->common.format, "text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  return {cmd, [args] { return RunPatterns(*args); }};
}

Command AddPlanCommand(CLI::App& app) {
  auto args = std::make_shared<PlanArgs>();
  auto* cmd = app.add_subcommand("plan",
                                 "Plan the Paddle migration of a PyTorch custom-op library that has no fork "
                                 "yet: touchpoints, what to keep, validation path, compat-gap strategy");
  cmd->add_option("--upstream", args->upstream, "The library: URL or local path")->required();
  cmd->add_option("--branch", args->branch, "Branch to plan for (default: the repository's default branch)");
  AddCommonOptions(cmd, args->common);
  cmd->add_option("--format", args->common.format, "markdown or json")
      ->check(CLI::IsMember({"markdown", "json"}))
      ->capture_default_str();
  cmd->add_flag("--allow-foreign-owner", args->allow_foreign_owner,
                "Open repositories owned by another user (libgit2 refuses them by default)");
  return {cmd, [args] { return RunPlan(*args); }};
}

}  // namespace forkscope::server
