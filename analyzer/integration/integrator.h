// Integrators: repositories that ship forks as git submodules, PaddleFleet first (its paddlefleet_ops
// package). ReadIntegrator reads one branch of an integrator's bare mirror without a work tree —
// .gitmodules and the gitlinks (both layouts: packages/paddlefleet_ops/third_party/<Lib> and
// third_party/<Lib>), every EcosystemLibrary(...) of build_utils.py's get_libs() and the directories
// check_submodule_updated() tests, .gitignore, the loader blocks of paddlefleet_ops/__init__.py (their
// compat guard and scope), the import test and tests/test_configs.yaml — matches each submodule to a
// registered fork by URL, says where its pin stands on the fork, and lists what is missing as text to
// paste (also for registered forks the integrator lacks). docs/integration.md explains the states.
// Value types; ReadIntegrator opens its own repositories and runs one parse helper: any thread may call.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/classify/rules.h"
#include "analyzer/integration/python_scan.h"
#include "base/status.h"

namespace forkscope::analyzer::integration {

// Where a library's pinned commit stands.
enum class PinState {
  kCurrent,        // the head of the fork's migration branch
  kBehind,         // on the migration branch, `behind` commits before its head
  kOffBranch,      // on another branch or tag of the fork, not on the migration branch
  kOrphaned,       // on no branch or tag of the fork: a fresh `git submodule update` cannot fetch it
  kUnmatched,      // no registered fork has the submodule's URL
  kUnreachable,    // the matched fork could not be fetched
  kNotIntegrated,  // a registered fork the integrator has no submodule for (readiness)
};
const char* PinStateName(PinState state);  // "current", "behind", "off-branch", "orphaned", ...
std::optional<PinState> PinStateFromName(const std::string& name);

// The integration steps a library has in the integrator.
struct IntegrationSteps {
  bool submodule = false;        // a .gitmodules entry with a gitlink at its path
  bool get_libs = false;         // an EcosystemLibrary(...) in build_utils.py's get_libs()
  bool submodule_check = false;  // check_submodule_updated() tests its directory
  bool gitignore = false;        // .gitignore lists every artifact it installs into the ops package
  bool loader = false;           // paddlefleet_ops/__init__.py loads it (_safe_load_ecosystem_lib)
  bool import_test = false;      // the import smoke test imports it
};

// The loader block of a library (its first _safe_load_ecosystem_lib call).
struct LoaderBlock {
  std::string guard = "none";           // "use_compat_guard", "enable_compat" (older: to be replaced) or "none"
  std::vector<std::string> scope;       // the guard's scope={...}
  std::string module;                   // the import name it loads ("deep_gemm")
  int line = 0;                         // of the load call; 0 when there is none
  std::vector<std::string> extra_libs;  // loaded with it under the same guard (sonicmoe's ["quack"])
};

struct LibraryReport {
  std::string name;        // the submodule directory's last component ("DeepGEMM"); proposed for readiness
  std::string path;        // the submodule's path ("packages/paddlefleet_ops/third_party/DeepGEMM")
  std::string url;         // the .gitmodules URL (credentials shown as ***); the fork's for readiness
  std::string pinned_sha;  // "" when not integrated
  std::string fork;        // the registered fork's name; "" = none (JSON null)
  std::string branch;      // the fork branch the pin is measured against ("" when unmatched)
  PinState state = PinState::kUnmatched;
  std::optional<int> behind;           // commits of the branch after the pin
  std::optional<int> upstream_behind;  // upstream commits the pin lacks
  IntegrationSteps steps;
  LoaderBlock loader;
  std::vector<std::string> needed_scope;  // the fork's (eager-import lint at its head); empty when unknown
  std::vector<std::string> missing;       // text to paste, one entry per missing step
  // Not in the API's JSON (rendered in text and Markdown):
  std::vector<std::string> artifacts;         // the target names get_libs() installs
  std::vector<std::string> scope_lacks;       // needed_scope entries the loader's scope lacks
  std::vector<std::string> multi_card_tests;  // tests/test_configs.yaml entries naming the library
  std::string other_ref;                      // off-branch: the fork ref holding the pin
  std::string notes;                          // one line: why a state is what it is (unreachable error...)
};

struct IntegratorReport {
  std::string name;
  std::string url;  // credentials shown as ***
  std::string branch;
  std::string head;                      // the integrator branch's commit
  std::vector<LibraryReport> libraries;  // submodules in path order, then registered forks not integrated
  std::vector<std::string> notices;      // files missing or not parsed
  int64_t read_us = 0;                   // time spent reading: all of it, and its three parts
  int64_t tree_us = 0;                   // the tree walk and the files' blobs
  int64_t parse_us = 0;                  // the parse helper
  int64_t parse_cpu_us = 0;              // the helper's CPU time (user + system)
  int64_t judge_us = 0;                  // matching, pins, steps
};

// A registered fork as the reader sees it: where its refs are and what its package needs.
struct RegisteredFork {
  std::string name;
  std::string url;                    // as registered (credentials are redacted in the report)
  std::string branch;                 // its migration branch
  std::string repo;                   // the bare repository holding its refs ("" = could not be fetched)
  std::string refs_prefix = "refs/";  // "refs/forks/<ns>/" in a fork network
  std::string upstream_ref;           // a full ref of the upstream branch in repo ("" = not measured)
  std::string fetch_error;            // why repo is "" (shown for state unreachable)
  // The fork's Python packages and needed scope at its head (ForkPackageScope), when known.
  std::vector<std::string> packages;
  std::vector<std::string> needed_scope;
};

struct IntegratorSource {
  std::string name;
  std::string url;     // the integrator's URL (relative submodule URLs are resolved against it)
  std::string branch;  // the branch read
  std::string repo;    // its bare mirror
  std::string ref;     // the branch as a ref of repo ("refs/heads/develop")
};

struct ReadOptions {
  PythonScanOptions scan;
  bool readiness = true;  // add entries for registered forks the integrator lacks
};

Result<IntegratorReport> ReadIntegrator(const IntegratorSource& source, const std::vector<RegisteredFork>& forks,
                                        const ReadOptions& options = {});

// The top-level Python packages at the fork's head (no parsing): what ForkPackageScope's
// extra_sensitive for the other forks is made of.
Status ForkPackageNames(const Rules& rules, RegisteredFork& fork);

// The eager-import lint of a fork's head for the reader: its top-level packages and the needed scope
// (fork.repo, fork.refs_prefix + "heads/" + fork.branch). extra_sensitive: other forks' packages.
Status ForkPackageScope(const Rules& rules, RegisteredFork& fork, const std::vector<std::string>& extra_sensitive = {},
                        const PythonScanOptions& scan = {});

}  // namespace forkscope::analyzer::integration
