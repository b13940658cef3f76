// The forkscope command line: one binary, one subcommand per capability. Exit codes: 0 success,
// 1 a failure the command was asked to find (violations past --fail-on, a job whose commit did not
// pass, a carry conflict, diverging traces), 2 an error (bad input, unknown command, missing branch,
// unreachable repository, a job that could not run). -v/-q work before or after the subcommand.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

#include "server/app/exit_codes.h"

namespace forkscope::server {

// Options every subcommand shares.
struct GlobalOptions {
  bool verbose = false;
  bool quiet = false;
};

// Each subcommand registers its options and a runner; RunCli calls the runner of the one given.
using CommandRunner = std::function<int()>;
struct Command {
  CLI::App* app;
  CommandRunner run;
};
Command AddAnalyzeCommand(CLI::App& app);
Command AddServeCommand(CLI::App& app);
Command AddDemoCommand(CLI::App& app);
Command AddCheckCommand(CLI::App& app);
Command AddDriftCommand(CLI::App& app);
Command AddCarryCommand(CLI::App& app);
Command AddJobCommand(CLI::App& app);        // server/cli_job.cpp
Command AddTraceDiffCommand(CLI::App& app);  // server/cli_trace_diff.cpp
Command AddPatternsCommand(CLI::App& app);
Command AddPlanCommand(CLI::App& app);
Command AddIntegrationCommand(CLI::App& app);  // server/cli/integration.cpp

int RunCli(int argc, char** argv);

// Writes text to stdout (the report channel; logs go to stderr).
void PrintOut(const std::string& text);

}  // namespace forkscope::server
