// Named loggers, one per area of the code (STYLE.md): each line says where it comes from
// ("2026-12-02T07:00:00.000 info [sync] fork=x ..."). ConfigureLogging is the one place that sets their
// sink (stderr), format (values' control characters escaped, log_escape.h) and level; before it (a test,
// a library user) an area's logger shares the default logger's sinks. Thread-safe.
#pragma once

#include <spdlog/spdlog.h>

#include <memory>

namespace forkscope::base {

enum class LogArea {
  kAnalyzer,     // analyzer/ outside git: classification, diffs, drift, carry, rules
  kGit,          // analyzer/git: fetches, networks, packs, pushes
  kIntegration,  // integrators, eager-import lint
  kStore,        // storage/
  kSync,         // syncs and analyses in the daemon
  kCarry,        // carries, candidates, publishing
  kJobs,         // GPU jobs, executors, runners
  kAlerts,       // drift alerts, webhooks
  kPatterns,     // pattern mining
  kScheduler,    // the sync schedule
  kTasks,        // the task runtime
  kHttp,         // the HTTP server and the API
  kApp,          // start-up, shutdown, configuration
  kCli,          // one-shot commands
};

const char* LogAreaName(LogArea area);

// Every area's logger writes to stderr at level; call once, before other threads log.
void ConfigureLogging(spdlog::level::level_enum level);

// The area's logger (never null).
std::shared_ptr<spdlog::logger> Log(LogArea area);

}  // namespace forkscope::base
