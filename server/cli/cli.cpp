#include "server/cli/cli.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <vector>

#include "analyzer/git/global.h"
#include "base/log_escape.h"

namespace forkscope::server {

void PrintOut(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  if (text.empty() || text.back() != '\n') std::fputc('\n', stdout);
  std::fflush(stdout);
}

namespace {

void SetUpLogging(const GlobalOptions& g) {
  auto logger = spdlog::stderr_color_mt("forkscope");
  spdlog::set_default_logger(logger);
  // Messages are written with control characters escaped: a value cannot end a line and forge the next.
  spdlog::set_formatter(base::EscapingFormatter("%Y-%m-%dT%H:%M:%S.%e %^%l%$ %v"));
  spdlog::set_level(g.verbose ? spdlog::level::debug : g.quiet ? spdlog::level::warn : spdlog::level::info);
}

// The first word that is not an option names the command; CLI11 answers an unknown one with "A
// subcommand is required", so it is caught here and named. Empty when the word is a command (or none).
std::string UnknownCommand(int argc, char** argv, CLI::App& app) {
  const std::vector<CLI::App*> commands = app.get_subcommands([](CLI::App*) { return true; });
  for (int i = 1; i < argc; ++i) {
    std::string word = argv[i];
    if (word.empty() || word[0] == '-') continue;
    for (const CLI::App* c : commands)
      if (c->check_name(word)) return "";
    std::string names;
    for (const CLI::App* c : commands) names += (names.empty() ? "" : ", ") + c->get_name();
    return "forkscope: unknown command '" + word + "'. Commands: " + names + ". See forkscope --help.";
  }
  return "";
}

}  // namespace

int RunCli(int argc, char** argv) {
  analyzer::git::GlobalInit();
  CLI::App app{
      "forkscope keeps PyTorch custom-operator libraries healthy on PaddlePaddle: it mirrors each fork and its\n"
      "upstream, sorts the migration diff into layers (kernel, build, cpp_compat, python, other), names\n"
      "patterns, flags minimal-modification violations and compat gaps, and stores it all in SQLite.",
      "forkscope"};
  app.require_subcommand(1);
  app.set_version_flag("--version", FORKSCOPE_VERSION);
  // -v/-q are taken after the subcommand too (`forkscope check -q ...`): subcommands created from here
  // on hand options they do not know up to this app.
  app.fallthrough();
  GlobalOptions g;
  app.add_flag("-v,--verbose", g.verbose, "Debug logging");
  app.add_flag("-q,--quiet", g.quiet, "Only warnings and errors");
  std::vector<Command> commands = {
      AddAnalyzeCommand(app),
      AddServeCommand(app),
      AddDemoCommand(app),
      AddCheckCommand(app),
      AddDriftCommand(app),
      AddCarryCommand(app),
      AddJobCommand(app),
      AddTraceDiffCommand(app),
      AddPatternsCommand(app),
      AddPlanCommand(app),
  };
  if (std::string unknown = UnknownCommand(argc, argv, app); !unknown.empty()) {
    std::fprintf(stderr, "%s\n", unknown.c_str());
    return kExitError;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitError;
  }
  SetUpLogging(g);
  for (auto& c : commands)
    if (c.app->parsed()) return c.run();
  return kExitError;
}

}  // namespace forkscope::server
