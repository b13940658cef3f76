// Internal to the eager-import lint (eager_import*.cpp): the module graph built from the helper's parse.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analyzer/classify/rules_data.h"
#include "analyzer/integration/eager_import.h"
#include "base/status.h"

namespace forkscope::analyzer::integration {

struct ImportStmt {
  std::string module;              // absolute
  std::vector<std::string> names;  // of a from-import
  int line = 0;
  bool module_level = true;    // runs while the module loads
  std::string function;        // the enclosing function, when not module level
  bool type_checking = false;  // under `if TYPE_CHECKING:` (never runs)
  bool in_getattr = false;     // inside a module-level __getattr__ (reported as its lazy loader)
  std::string comment;         // the comment block just above, and its inline comment
};

struct LazyLoad {
  std::string kind;  // "module-getattr", "import_module", "lazy_loader"
  int line = 0;
  std::string target;  // the module named by a constant argument, "" when dynamic or none
  std::string comment;
};

struct ModuleNode {
  std::string path;
  std::string name;
  bool package = false;
  std::vector<std::string_view> lines;  // the file's lines (views into the caller's text)
  std::vector<ImportStmt> imports;
  std::vector<LazyLoad> lazy;
  std::string error;  // a parse error: the module has no imports known
  // Solved:
  std::vector<size_t> loads;       // internal modules it loads at module level (parents included)
  std::set<std::string> external;  // top-level external packages it imports at module level
  bool imports_torch = false;      // directly, through a sensitive package or an internal module
  bool loaded = false;             // reached from a package root's __init__ by module-level imports
};

struct ModuleGraph {
  std::vector<ModuleNode> nodes;
  std::unordered_map<std::string, size_t> index;  // module name -> node
  std::set<std::string> own_packages;             // the linted packages' names
  std::set<std::string> sensitive;                // external packages that import torch while loading

  // Reads the helper's answer into the nodes (matched by path); a file that did not parse adds a notice.
  Status Load(const nlohmann::json& answer, std::vector<std::string>* notices);
  // Internal modules an import loads: every known prefix of its module, and module.name for each
  // imported name that is a module.
  std::vector<size_t> Targets(const ImportStmt& stmt) const;
  // Whether an import run later (inside a function) would load torch outside the guard: torch or a
  // sensitive package (always imported anew under whatever compat state is then in force), or an
  // internal torch-importing module that `import <package>` did not load. Needs Solve().
  bool LoadsTorchLate(const ImportStmt& stmt) const;
  bool IsTorchName(const std::string& top) const { return top == "torch" || sensitive.count(top) > 0; }
  void Solve();
  int LoadedCount() const;
  std::vector<std::string> NeededScope(const std::vector<PythonPackage>& packages) const;
};

// The three rules' findings over a solved graph, in path then line order.
std::vector<Violation> FindEagerImportViolations(const RulesData& rules, const ModuleGraph& graph);

}  // namespace forkscope::analyzer::integration
