// The daemon's start-up and shutdown, shared by `forkscope serve` and tests: configuration in,
// registry reconciled with the config, workers and HTTP server started, signals handled.
#pragma once

#include <string>

#include "server/config/config.h"

namespace forkscope::server {

struct ServeOptions {
  Config config;
  bool demo = false;      // create and register the demo forks
  std::string port_file;  // write the bound port here once listening
};

// Runs until SIGTERM/SIGINT; returns the process exit code.
int RunDaemon(ServeOptions options);

// Registers (or updates) the forks named in the config; used at start-up and by `forkscope demo`.
Status ReconcileForks(const std::string& database, const std::vector<ForkConfig>& forks);

}  // namespace forkscope::server
