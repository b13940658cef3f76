// The module graph of the eager-import lint: what each module loads while it loads, which modules
// `import <package>` reaches, and which import torch.
#include <algorithm>
#include <deque>

#include "analyzer/integration/eager_import_internal.h"

namespace forkscope::analyzer::integration {
namespace {

using nlohmann::json;

std::string Str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}
int Int(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<int>() : 0;
}
bool Bool(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

std::string Top(const std::string& module) { return module.substr(0, module.find('.')); }

}  // namespace

Status ModuleGraph::Load(const json& answer, std::vector<std::string>* notices) {
  auto files = answer.find("files");
  if (files == answer.end() || !files->is_array()) return Internal("the Python parse helper answered without files");
  std::unordered_map<std::string, size_t> by_path;
  for (size_t i = 0; i < nodes.size(); ++i) by_path[nodes[i].path] = i;
  for (const auto& f : *files) {
    auto it = by_path.find(Str(f, "path"));
    if (it == by_path.end()) continue;
    ModuleNode& node = nodes[it->second];
    node.error = Str(f, "error");
    if (!node.error.empty()) {
      if (notices) notices->push_back("eager-import lint: " + node.path + " was not parsed: " + node.error);
      continue;
    }
    for (const auto& i : f.value("imports", json::array())) {
      ImportStmt s;
      s.module = Str(i, "module");
      for (const auto& n : i.value("names", json::array()))
        if (n.is_string()) s.names.push_back(n.get<std::string>());
      s.line = Int(i, "line");
      s.module_level = Str(i, "level") == "module";
      s.function = Str(i, "function");
      s.type_checking = Bool(i, "type_checking");
      s.in_getattr = Bool(i, "in_getattr");
      s.comment = Str(i, "comment");
      node.imports.push_back(std::move(s));
    }
    for (const auto& l : f.value("lazy", json::array()))
      node.lazy.push_back({Str(l, "kind"), Int(l, "line"), Str(l, "target"), Str(l, "comment")});
  }
  return Status::Ok();
}

std::vector<size_t> ModuleGraph::Targets(const ImportStmt& stmt) const {
  std::vector<size_t> out;
  size_t pos = 0;
  while (true) {
    pos = stmt.module.find('.', pos);
    auto it = index.find(stmt.module.substr(0, pos));
    if (it != index.end()) out.push_back(it->second);
    if (pos == std::string::npos) break;
    ++pos;
  }
  for (const auto& n : stmt.names) {
    if (n == "*") continue;
    auto it = index.find(stmt.module + "." + n);
    if (it != index.end()) out.push_back(it->second);
  }
  return out;
}

bool ModuleGraph::LoadsTorchLate(const ImportStmt& stmt) const {
  const std::string top = Top(stmt.module);
  if (own_packages.count(top) == 0) return IsTorchName(top);
  for (size_t t : Targets(stmt))
    if (nodes[t].imports_torch && !nodes[t].loaded) return true;
  return false;
}

void ModuleGraph::Solve() {
  for (auto& node : nodes) {
    // A module's parents load before it.
    for (size_t dot = node.name.rfind('.'); dot != std::string::npos; dot = node.name.rfind('.', dot - 1)) {
      auto it = index.find(node.name.substr(0, dot));
      if (it != index.end()) node.loads.push_back(it->second);
      if (dot == 0) break;
    }
    for (const auto& s : node.imports) {
      if (!s.module_level || s.type_checking) continue;
      const std::string top = Top(s.module);
      if (own_packages.count(top) == 0) {
        node.external.insert(top);
        if (IsTorchName(top)) node.imports_torch = true;
        continue;
      }
      for (size_t t : Targets(s)) node.loads.push_back(t);
    }
  }
  // imports_torch spreads backwards along the load edges (parents excluded: a package does not import
  // torch because one of its submodules does).
  std::vector<std::vector<size_t>> importers(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (const auto& s : nodes[i].imports) {
      if (!s.module_level || s.type_checking || own_packages.count(Top(s.module)) == 0) continue;
      for (size_t t : Targets(s)) importers[t].push_back(i);
    }
  }
  std::deque<size_t> todo;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].imports_torch) todo.push_back(i);
  while (!todo.empty()) {
    size_t t = todo.front();
    todo.pop_front();
    for (size_t i : importers[t])
      if (!nodes[i].imports_torch) {
        nodes[i].imports_torch = true;
        todo.push_back(i);
      }
  }
  for (const auto& pkg : own_packages) {
    auto root = index.find(pkg);
    if (root == index.end()) continue;
    todo.push_back(root->second);
    nodes[root->second].loaded = true;
  }
  while (!todo.empty()) {
    size_t n = todo.front();
    todo.pop_front();
    for (size_t t : nodes[n].loads)
      if (!nodes[t].loaded) {
        nodes[t].loaded = true;
        todo.push_back(t);
      }
  }
}

int ModuleGraph::LoadedCount() const {
  return static_cast<int>(std::count_if(nodes.begin(), nodes.end(), [](const ModuleNode& n) { return n.loaded; }));
}

std::vector<std::string> ModuleGraph::NeededScope(const std::vector<PythonPackage>& packages) const {
  std::vector<std::string> scope;
  std::set<std::string> deps;
  for (const auto& pkg : packages) {
    bool needs = false;
    for (const auto& n : nodes) {
      if (!n.loaded || Top(n.name) != pkg.name) continue;
      needs = needs || n.imports_torch;
      for (const auto& e : n.external)
        if (e != "torch" && sensitive.count(e) > 0 && own_packages.count(e) == 0) deps.insert(e);
    }
    if (needs && std::find(scope.begin(), scope.end(), pkg.name) == scope.end()) scope.push_back(pkg.name);
  }
  scope.insert(scope.end(), deps.begin(), deps.end());
  return scope;
}

}  // namespace forkscope::analyzer::integration
