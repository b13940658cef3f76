// The text to paste for each missing integration step, in the shapes PaddleFleet's own files use
// (the guide's paddlefleet-integration.md): shown to the maintainer, never applied.
#include <algorithm>

#include "analyzer/integration/integrator_files.h"

namespace forkscope::analyzer::integration {
namespace {

std::string Relative(const std::string& path, const std::string& dir) {
  if (dir.empty()) return path;
  if (path.compare(0, dir.size() + 1, dir + "/") == 0) return path.substr(dir.size() + 1);
  return path;
}

std::string PyStr(const std::string& s) {
  std::string out = "\"";
  for (char c : s) out += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return out + "\"";
}

std::vector<std::string> Scope(const PasteContext& c) {
  return c.needed_scope.empty() ? std::vector<std::string>{c.module} : c.needed_scope;
}

std::string ScopeSet(const std::vector<std::string>& scope) {
  std::string out = "{";
  for (size_t i = 0; i < scope.size(); ++i) out += (i ? ", " : "") + PyStr(scope[i]);
  return out + "}";
}

std::vector<std::string> Targets(const PasteContext& c) {
  return c.artifacts.empty() ? std::vector<std::string>{c.module} : c.artifacts;
}

}  // namespace

std::string PasteGitmodules(const PasteContext& c) {
  std::string out = "# .gitmodules (then: git submodule add" + (c.branch.empty() ? std::string() : " -b " + c.branch) +
                    " " + c.url + " " + c.path + ")\n";
  out += "[submodule \"" + c.path + "\"]\n\tpath = " + c.path + "\n\turl = " + c.url + "\n";
  if (c.branch_line && !c.branch.empty()) out += "\tbranch = " + c.branch + "\n";
  return out;
}

std::string PasteEcosystemLibrary(const PasteContext& c) {
  std::string out = "# " + c.layout.build_utils + ", get_libs(): append to LIBRARIES\n";
  out += "EcosystemLibrary(\n    name=" + PyStr(c.lib) +
         ",\n    source_rel_path=" + PyStr(Relative(c.path, c.layout.BuildUtilsDir())) + ",\n    artifacts=[\n";
  for (const auto& t : Targets(c)) out += "        Artifact(" + PyStr(t) + ", " + PyStr(t) + "),\n";
  out += "    ],\n),\n";
  return out;
}

std::string PasteSubmoduleCheck(const PasteContext& c) {
  std::string rel = Relative(c.path, c.layout.BuildUtilsDir());
  std::string chain = "PKG_ROOT";
  size_t start = 0;
  while (start <= rel.size()) {
    size_t slash = rel.find('/', start);
    if (slash == std::string::npos) slash = rel.size();
    chain += " / " + PyStr(rel.substr(start, slash - start));
    start = slash + 1;
  }
  return "# " + c.layout.build_utils + ", check_submodule_updated(): add to the condition\nand (" + chain +
         " / \".git\").exists()\n";
}

std::string PasteLoader(const PasteContext& c) {
  return "# " + c.layout.loader + "\nif is_" + c.module +
         "_available():\n    with paddle.use_compat_guard(scope=" + ScopeSet(Scope(c)) +
         ", silent=True):\n        _safe_load_ecosystem_lib(" + PyStr(c.module) +
         ", ops_dir, globals())\nelse:\n    blocked_import_messages[" + PyStr(c.layout.ops_package + "." + c.module) +
         "] = error\n";
}

std::string PasteGitignore(const PasteContext& c, const std::vector<std::string>& targets) {
  std::string out = "# .gitignore\n";
  for (const auto& t : targets) out += c.layout.OpsDir() + "/" + t + "\n";
  return out;
}

std::string PasteImportTest(const PasteContext& c) {
  std::string cls;
  bool up = true;
  for (char ch : c.module) {
    if (ch == '_' || ch == '-') {
      up = true;
      continue;
    }
    cls += up ? static_cast<char>(std::toupper(static_cast<unsigned char>(ch))) : ch;
    up = false;
  }
  return "# " + c.layout.import_test + "\nclass Test" + cls + "Import(unittest.TestCase):\n    def test_" + c.module +
         "_import(self):\n        import " + c.layout.ops_package + "\n\n        if not " + c.layout.ops_package +
         ".is_" + c.module + "_available():\n            self.skipTest(\"" + c.module +
         " is not available here\")\n        from " + c.layout.ops_package + " import " + c.module + "  # noqa: F401\n";
}

std::string PasteScopeFix(const PasteContext& c, const std::vector<std::string>& lacks) {
  std::string names;
  for (size_t i = 0; i < lacks.size(); ++i) names += (i ? ", " : "") + lacks[i];
  return "# " + c.layout.loader + ": the scope lacks " + names + " (imported with torch while " + c.module +
         " loads)\nwith paddle.use_compat_guard(scope=" + ScopeSet(Scope(c)) +
         ", silent=True):\n    _safe_load_ecosystem_lib(" + PyStr(c.module) + ", ops_dir, globals())\n";
}

}  // namespace forkscope::analyzer::integration
