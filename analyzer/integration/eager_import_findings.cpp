// The eager-import lint's findings: modules `import <package>` never loads although they import torch
// (grouped by the highest unloaded package), torch imports inside functions, lazy loaders. A comment just
// above a lazy import that gives a reason makes it a documented exception, reported as a note; a comment
// that only excuses a circular import does not (circular imports are fixed by import order).
#include <algorithm>
#include <map>

#include "analyzer/integration/eager_import_internal.h"

namespace forkscope::analyzer::integration {
namespace {

const ViolationRule* RuleFor(const RulesData& rules, ViolationCheck check) {
  for (const auto& r : rules.violations)
    if (r.check == check) return &r;
  return nullptr;
}

std::string Parent(const std::string& module) {
  size_t dot = module.rfind('.');
  return dot == std::string::npos ? "" : module.substr(0, dot);
}

std::string Last(const std::string& module) {
  size_t dot = module.rfind('.');
  return dot == std::string::npos ? module : module.substr(dot + 1);
}

std::string Dirname(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

// A comment's text without lint pragmas (noqa, type: ignore, isort/fmt/pylint switches), which give no reason.
std::string Reason(const std::string& comment) {
  std::string out;
  size_t start = 0;
  while (start <= comment.size()) {
    size_t end = comment.find('\n', start);
    if (end == std::string::npos) end = comment.size();
    std::string line = comment.substr(start, end - start);
    std::string lower = line;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    const bool pragma = lower.rfind("noqa", 0) == 0 || lower.rfind("type:", 0) == 0 || lower.rfind("isort:", 0) == 0 ||
                        lower.rfind("fmt:", 0) == 0 || lower.rfind("pylint:", 0) == 0 ||
                        lower.rfind("pyright:", 0) == 0 || lower.rfind("ruff:", 0) == 0 || lower.rfind("nosec", 0) == 0;
    if (!pragma && !line.empty()) out += (out.empty() ? "" : " ") + line;
    start = end + 1;
  }
  return out;
}

struct Verdict {
  Severity severity;
  std::string detail;
};

// The severity and detail of a lazy import with the comment above it.
Verdict Judge(const RulesData& rules, const ViolationRule& rule, const std::string& comment, const std::string& what) {
  const std::string reason = Reason(comment);
  if (reason.empty()) return {rule.severity, what};
  const auto& ei = rules.eager_import;
  const bool documented = ei.documented && RE2::PartialMatch(reason, *ei.documented);
  if (!documented && ei.circular && RE2::PartialMatch(reason, *ei.circular))
    return {rule.severity,
            what + " (\"" + reason + "\": a circular import is fixed by import order, not by a lazy import)"};
  std::string detail = what + "; documented exception: \"" + reason + "\"";
  if (!documented) detail += " (state the call path that triggers it and when it can be removed)";
  return {Severity::kNote, detail};
}

std::string LineText(const ModuleNode& node, int line) {
  if (line < 1 || static_cast<size_t>(line) > node.lines.size()) return "";
  return std::string(node.lines[static_cast<size_t>(line) - 1]);
}

void AddMissing(const ViolationRule& rule, const ModuleGraph& graph, std::vector<Violation>& out) {
  // Group each unloaded torch-importing module under its highest unloaded ancestor package.
  std::map<std::string, std::vector<const ModuleNode*>> groups;
  for (const auto& n : graph.nodes) {
    if (n.loaded || !n.imports_torch || !n.error.empty()) continue;
    std::string root = n.name;
    for (std::string p = Parent(n.name); !p.empty(); p = Parent(p)) {
      auto it = graph.index.find(p);
      if (it == graph.index.end() || graph.nodes[it->second].loaded) break;
      root = p;
    }
    groups[root].push_back(&n);
  }
  for (const auto& [root, members] : groups) {
    const ModuleNode& head = graph.nodes[graph.index.at(root)];
    const std::string parent = Parent(root);
    std::string init = "its package's __init__.py";
    if (auto it = graph.index.find(parent); it != graph.index.end()) init = graph.nodes[it->second].path;
    std::string reach = parent.empty() ? "" : "; reach it with `from . import " + Last(root) + "` in " + init;
    Violation v{rule.id, head.path, 0, ""};
    v.severity = rule.severity;
    if (head.package) {
      v.path = Dirname(head.path);
      for (const auto* m : members) v.files.push_back(m->path);
      std::sort(v.files.begin(), v.files.end());
      v.message = rule.message + ": " + root + " (" + std::to_string(members.size()) +
                  (members.size() == 1 ? " module" : " modules") + " importing torch)" + reach;
    } else {
      v.message = rule.message + ": " + root + reach;
    }
    out.push_back(std::move(v));
  }
}

void AddFunctionLevel(const RulesData& rules, const ViolationRule& rule, const ModuleGraph& graph,
                      std::vector<Violation>& out) {
  for (const auto& n : graph.nodes) {
    for (const auto& s : n.imports) {
      if (s.module_level || s.type_checking || s.in_getattr || !graph.LoadsTorchLate(s)) continue;
      const std::string what = "`" + s.module + "` imported in " + s.function + "()";
      Verdict verdict = Judge(rules, rule, s.comment, what);
      Violation v{rule.id, n.path, s.line, rule.message + ": " + verdict.detail, verdict.severity, LineText(n, s.line)};
      out.push_back(std::move(v));
    }
  }
}

bool LazyTargetMatters(const ModuleGraph& graph, const LazyLoad& lazy) {
  if (lazy.kind != "import_module" || lazy.target.empty()) return true;
  ImportStmt s;
  s.module = lazy.target;
  return graph.own_packages.count(s.module.substr(0, s.module.find('.'))) > 0 || graph.LoadsTorchLate(s);
}

void AddLazy(const RulesData& rules, const ViolationRule& rule, const ModuleGraph& graph, std::vector<Violation>& out) {
  for (const auto& n : graph.nodes) {
    for (const auto& l : n.lazy) {
      if (!LazyTargetMatters(graph, l)) continue;
      std::string what = l.kind == "module-getattr" ? "module-level __getattr__ that imports on first attribute access"
                         : l.kind == "lazy_loader"
                             ? "lazy_loader.attach"
                             : "importlib.import_module(" +
                                   (l.target.empty() ? std::string("<computed name>") : l.target) +
                                   ") inside a function";
      Verdict verdict = Judge(rules, rule, l.comment, what);
      out.push_back(Violation{rule.id, n.path, l.line, rule.message + ": " + verdict.detail, verdict.severity,
                              LineText(n, l.line)});
    }
  }
}

}  // namespace

std::vector<Violation> FindEagerImportViolations(const RulesData& rules, const ModuleGraph& graph) {
  std::vector<Violation> out;
  if (const ViolationRule* r = RuleFor(rules, ViolationCheck::kEagerImportMissing)) AddMissing(*r, graph, out);
  if (const ViolationRule* r = RuleFor(rules, ViolationCheck::kFunctionLevelTorchImport))
    AddFunctionLevel(rules, *r, graph, out);
  if (const ViolationRule* r = RuleFor(rules, ViolationCheck::kLazyLoader)) AddLazy(rules, *r, graph, out);
  std::stable_sort(out.begin(), out.end(), [](const Violation& a, const Violation& b) {
    return a.path != b.path ? a.path < b.path : a.line < b.line;
  });
  return out;
}

}  // namespace forkscope::analyzer::integration
