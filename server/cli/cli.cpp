#include "server/cli/cli.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <string_view>
#include <vector>

#include "base/log.h"
#include "server/app/process.h"

namespace forkscope::server {

void PrintOut(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  if (text.empty() || text.back() != '\n') std::fputc('\n', stdout);
  std::fflush(stdout);
}

namespace {

// The daemon logs what it does (info); a one-shot command prints its report on stdout and logs only
// warnings and errors, unless -v asks for everything.
void SetUpLogging(const GlobalOptions& g, bool daemon) {
  base::ConfigureLogging(g.verbose            ? spdlog::level::debug
                         : g.quiet || !daemon ? spdlog::level::warn
                                              : spdlog::level::info);
}

// The commands, by the name each one's Add function gives its subcommand (a test runs `<name> --help`
// for every entry, so a name that drifts from its subcommand fails there).
struct CommandEntry {
  const char* name;
  Command (*add)(CLI::App&);
};
constexpr CommandEntry kCommands[] = {
    {"analyze", AddAnalyzeCommand},
    {"serve", AddServeCommand},
    {"demo", AddDemoCommand},
    {"check", AddCheckCommand},
    {"drift", AddDriftCommand},
    {"carry", AddCarryCommand},
    {"job", AddJobCommand},
    {"trace-diff", AddTraceDiffCommand},
    {"patterns", AddPatternsCommand},
    {"plan", AddPlanCommand},
    {"integration", AddIntegrationCommand},
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

// Optimal string alignment distance (Levenshtein with adjacent transpositions): "analyse" is 1 from
// "analyze", "chekc" 1 from "check".
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

// The command a mistyped word most likely meant: the closest within a third of its length (at least 1),
// or one the word begins or that begins with it ("pattern" -> "patterns"). Null when none is close.
const char* Suggestion(std::string_view word) {
  const CommandEntry* best = nullptr;
  size_t best_distance = std::max<size_t>(1, word.size() / 3) + 1;
  for (const CommandEntry& e : kCommands) {
    const std::string_view name = e.name;
    size_t distance = EditDistance(word, name);
    if (word.size() >= 3 && (name.rfind(word, 0) == 0 || word.rfind(name, 0) == 0))
      distance = std::min<size_t>(distance, 1);
    if (distance < best_distance) best = &e, best_distance = distance;
  }
  return best == nullptr ? nullptr : best->name;
}

// CLI11 answers an unknown command with "A subcommand is required", so it is named here instead.
std::string UnknownCommand(const char* word) {
  if (word == nullptr || Chosen(word) != nullptr) return "";
  std::string names;
  for (const CommandEntry& e : kCommands) names += (names.empty() ? "" : ", ") + std::string(e.name);
  std::string text = "forkscope: unknown command '" + std::string(word) + "'.";
  if (const char* meant = Suggestion(word)) text += " Did you mean '" + std::string(meant) + "'?";
  return text + " Commands: " + names + ". See forkscope --help.";
}

// CLI11 stops at the first required option it misses; every missing one of the command (a nested
// command's, as `job run`, first) is named.
std::string MissingOptions(const CLI::App& app, const std::string& path = "forkscope") {
  for (const CLI::App* sub : app.get_subcommands()) {
    const std::string name = path + " " + sub->get_name();
    if (std::string nested = MissingOptions(*sub, name); !nested.empty()) return nested;
    std::string names;
    int missing = 0;
    for (const CLI::Option* opt : sub->get_options())
      if (opt->get_required() && opt->count() == 0) names += (missing++ ? ", " : "") + opt->get_name();
    if (missing > 0)
      return name + ": missing required option" + (missing > 1 ? "s " : " ") + names + ". Run '" + name +
             " --help' for more information.";
  }
  return "";
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
  } catch (const CLI::RequiredError& e) {
    if (std::string missing = MissingOptions(app); !missing.empty()) {
      std::fprintf(stderr, "%s\n", missing.c_str());
      return kExitError;
    }
    return app.exit(e) == 0 ? kExitOk : kExitError;
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitError;
  }
  SetUpLogging(g, chosen != nullptr && std::string_view(chosen->name) == "serve");
  for (auto& c : commands)
    if (c.app->parsed()) return c.run();
  return kExitError;
}

}  // namespace forkscope::server
