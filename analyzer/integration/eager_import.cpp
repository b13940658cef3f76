// The eager-import lint over the helper's parse (python_scan.h): a module graph of the packages, the set
// `import <package>` loads, which modules import torch while they load, and the findings.
#include "analyzer/integration/eager_import.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "analyzer/integration/eager_import_internal.h"
#include "base/text.h"

namespace forkscope::analyzer::integration {
namespace {

using nlohmann::json;

std::string Dirname(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool InSkippedDir(const std::string& path, const EagerImportRules& rules) {
  size_t start = 0;
  while (true) {
    size_t slash = path.find('/', start);
    if (slash == std::string::npos) return false;
    std::string_view part(path.data() + start, slash - start);
    for (const auto& skip : rules.skip_dirs)
      if (part == skip) return true;
    start = slash + 1;
  }
}

// The import name of a module file under a package directory ("src/fla/ops/x.py" under "src/fla/" -> "fla.ops.x").
std::string ModuleName(const std::string& path, const PythonPackage& pkg) {
  const std::string base = Dirname(pkg.dir.substr(0, pkg.dir.size() - 1));  // the directory holding the package
  std::string rel = path.substr(base.size());
  rel = rel.substr(0, rel.size() - 3);  // ".py"
  if (EndsWith(rel, "/__init__")) rel = rel.substr(0, rel.size() - 9);
  std::replace(rel.begin(), rel.end(), '/', '.');
  return rel;
}

}  // namespace

std::vector<PythonPackage> FindPythonPackages(const std::vector<std::string>& paths, const EagerImportRules& rules) {
  std::set<std::string> package_dirs;
  for (const auto& p : paths)
    if ((p == "__init__.py" || EndsWith(p, "/__init__.py")) && !InSkippedDir(p, rules)) package_dirs.insert(Dirname(p));
  std::vector<PythonPackage> out;
  for (const auto& dir : package_dirs) {
    if (dir.empty()) continue;  // an __init__.py at the root names no package
    const std::string parent = Dirname(dir.substr(0, dir.size() - 1));
    if (package_dirs.count(parent) > 0 && !parent.empty()) continue;
    const std::string name = dir.substr(parent.size(), dir.size() - parent.size() - 1);
    // Only a valid identifier can be imported.
    bool ident = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0]));
    for (char c : name) ident = ident && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    if (ident) out.push_back({name, dir});
  }
  return out;
}

Result<EagerImportReport> LintPythonPackages(const RulesData& rules, const std::vector<PythonFile>& files,
                                             const std::vector<std::string>& extra_sensitive,
                                             const PythonScanOptions& scan) {
  EagerImportReport report;
  std::vector<std::string> paths;
  for (const auto& f : files) paths.push_back(f.path);
  report.packages = FindPythonPackages(paths, rules.eager_import);
  if (report.packages.empty()) return report;
  ModuleGraph graph;
  json request = {{"mode", "modules"}, {"files", json::array()}};
  for (const auto& f : files) {
    if (!EndsWith(f.path, ".py") || InSkippedDir(f.path, rules.eager_import)) continue;
    const PythonPackage* pkg = nullptr;
    for (const auto& p : report.packages)
      if (f.path.compare(0, p.dir.size(), p.dir) == 0) pkg = &p;
    if (pkg == nullptr) continue;
    ModuleNode node;
    node.path = f.path;
    node.name = ModuleName(f.path, *pkg);
    node.package = EndsWith(f.path, "__init__.py");
    node.lines = base::SplitLines(f.text);
    request["files"].push_back({{"path", f.path}, {"module", node.name}, {"package", node.package}, {"text", f.text}});
    graph.index[node.name] = graph.nodes.size();
    graph.nodes.push_back(std::move(node));
  }
  report.modules = static_cast<int>(graph.nodes.size());
  FS_ASSIGN_OR_RETURN(json answer, RunPythonScan(request, scan));
  FS_RETURN_IF_ERROR(graph.Load(answer, &report.notices));
  for (const auto& p : report.packages) graph.own_packages.insert(p.name);
  for (const auto& s : rules.eager_import.proxy_sensitive) graph.sensitive.insert(s);
  for (const auto& s : extra_sensitive) graph.sensitive.insert(s);
  graph.Solve();
  report.loaded_modules = graph.LoadedCount();
  report.needed_scope = graph.NeededScope(report.packages);
  report.violations = FindEagerImportViolations(rules, graph);
  return report;
}

}  // namespace forkscope::analyzer::integration
