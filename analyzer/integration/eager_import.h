// The eager-import lint: whether a library's Python package can be loaded the way PaddleFleet loads it,
// inside one `with paddle.use_compat_guard(scope={...}):` block at first import. Every module that
// imports torch while it loads (directly, through a module of the package, or through a proxy-sensitive
// package such as triton) must be reached by module-level imports from the package's __init__.py; no
// torch import inside a function; no lazy loaders. The files are parsed by CPython's ast in a helper
// process (python_scan.h); nothing of the repository is imported or executed. Findings go through the
// rules' violation entries (eager-import-missing, function-level-torch-import, lazy-loader: their
// severity and message) and so through SARIF, baselines and `check`. Pure apart from the helper
// process; any thread may call.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analyzer/classify/rules.h"
#include "analyzer/classify/rules_data.h"
#include "analyzer/git/repo.h"
#include "analyzer/integration/python_scan.h"
#include "analyzer/model/model.h"
#include "base/status.h"

namespace forkscope::analyzer::integration {

struct PythonFile {
  std::string path;  // repository-relative
  std::string text;
};

// A top-level Python package of a tree: a directory with an __init__.py whose parent has none, outside
// the rules' skip_dirs.
struct PythonPackage {
  std::string name;  // the import name ("fla")
  std::string dir;   // its directory with a trailing '/' ("fla/", "src/deep_ep/")
};
std::vector<PythonPackage> FindPythonPackages(const std::vector<std::string>& paths, const EagerImportRules& rules);

struct EagerImportReport {
  std::vector<PythonPackage> packages;  // the packages linted
  // The top-level packages that import torch while the packages load: the packages themselves (when
  // any of their loaded modules does) first, then the proxy-sensitive dependencies they import
  // (sorted). A loader's use_compat_guard scope must name each.
  std::vector<std::string> needed_scope;
  std::vector<Violation> violations;  // in path order, then line
  std::vector<std::string> notices;   // files that did not parse, caps reached
  int modules = 0;                    // Python modules of the packages
  int loaded_modules = 0;             // of those, loaded by `import <package>`
};

// Lints the packages among files (every .py file of the packages; others are ignored). extra_sensitive
// adds top-level packages known to import torch while loading (e.g. other registered forks' packages).
// Rules without the three violation entries report no findings but still the scope.
Result<EagerImportReport> LintPythonPackages(const RulesData& rules, const std::vector<PythonFile>& files,
                                             const std::vector<std::string>& extra_sensitive = {},
                                             const PythonScanOptions& scan = {});

// The Python files of the packages of a commit's tree, read from repo (at most the rules' max_files and
// max_bytes; a notice in skipped says how many were left out).
Result<std::vector<PythonFile>> ReadPackageFiles(const git::PairRepo& repo, const std::string& commit,
                                                 const EagerImportRules& rules, std::vector<std::string>* notices);

// How the notice AddEagerImportFindings adds for the needed compat scope begins: information, not a
// warning (the one-shot CLI does not log it).
inline constexpr std::string_view kNeededScopeNotice = "needed compat scope ";

// The eager-import lint of an analysis' fork head, appended to analysis.violations and notices: only for
// compat and mixed migrations (native ports and non-migrations are spared) and only when the rules have
// an eager-import rule. The diff stage calls it after LintAnalysis.
Status AddEagerImportFindings(const Rules& rules, const git::PairRepo& repo, Analysis& analysis);

}  // namespace forkscope::analyzer::integration
