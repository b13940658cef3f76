#include "server/cli/cli.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <string_view>
#include <vector>

#include "server/app/process.h"
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

// The commands, by the name each one's Add function gives its subcommand (a test runs `<name> --help`
// for every entry, so a name that drifts from its subcommand fails there).
struct CommandEntry {
  const char* name;
  Command (*add)(CLI::App&);
};
constexpr CommandEntry kCommands[] = {
    {"analyze", AddAnalyzeCommand}, {"serve", AddServeCommand},           {"demo", AddDemoCommand},
    {"check", AddCheckCommand},     {"drift", AddDriftCommand},           {"carry", AddCarryCommand},
    {"job", AddJobCommand},         {"trace-diff", AddTraceDiffCommand},  {"patterns", AddPatternsCommand},
    {"plan", AddPlanCommand},       {"integration", AddIntegrationCommand},
};

// The first word that is not an option names the command (the global options are flags, they take no
// value). Null when there is no such word.
const char* CommandWord(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (argv[i][0] != '\0' && argv[i][0] != '-') return argv[i];
  return nullptr;
}

// The command's entry; null when the word names none. Only the named command's options are built:
// building all ten commands' options was a tenth of a one-shot `analyze`'s own instructions.
const CommandEntry* Chosen(const char* word) {
  if (word == nullptr) return nullptr;
  for (const CommandEntry& e : kCommands)
    if (std::string_view(word) == e.name) return &e;
  return nullptr;
}

// CLI11 answers an unknown command with "A subcommand is required", so it is named here instead.
std::string UnknownCommand(const char* word) {
  if (word == nullptr || Chosen(word) != nullptr) return "";
  std::string names;
  for (const CommandEntry& e : kCommands) names += (names.empty() ? "" : ", ") + std::string(e.name);
  return "forkscope: unknown command '" + std::string(word) + "'. Commands: " + names + ". See forkscope --help.";
}

}  // namespace

int RunCli(int argc, char** argv) {
  InitProcess();
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
  const char* word = CommandWord(argc, argv);
  if (std::string unknown = UnknownCommand(word); !unknown.empty()) {
    std::fprintf(stderr, "%s\n", unknown.c_str());
    return kExitError;
  }
  // No command word (`forkscope --help`, `--version`): every command, for the help's list.
  const CommandEntry* chosen = Chosen(word);
  std::vector<Command> commands;
  for (const CommandEntry& e : kCommands)
    if (chosen == nullptr || chosen == &e) commands.push_back(e.add(app));
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
