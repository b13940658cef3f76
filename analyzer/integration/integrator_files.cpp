// Reading an integrator's .gitmodules, .gitignore and tests/test_configs.yaml.
#include "analyzer/integration/integrator_files.h"

#include <algorithm>
#include <cctype>

#include "base/text.h"

namespace forkscope::analyzer::integration {
namespace {

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// A git-config value: quotes joined, escapes resolved, an unquoted '#' or ';' ends it.
std::string ConfigValue(std::string_view raw) {
  std::string out;
  bool quoted = false;
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (c == '"') {
      quoted = !quoted;
    } else if (c == '\\' && i + 1 < raw.size()) {
      char n = raw[++i];
      out += n == 'n' ? '\n' : n == 't' ? '\t' : n;
    } else if (!quoted && (c == '#' || c == ';')) {
      break;
    } else {
      out += c;
    }
  }
  return Trim(out);
}

std::string Basename(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string Dirname(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

bool EndsWithPath(const std::string& path, const std::string& suffix) {
  if (suffix.empty()) return true;
  if (path == suffix) return true;
  return path.size() > suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0 &&
         path[path.size() - suffix.size() - 1] == '/';
}

}  // namespace

std::vector<SubmoduleEntry> ParseGitmodules(const std::string& text) {
  std::vector<SubmoduleEntry> out;
  SubmoduleEntry* cur = nullptr;
  for (std::string_view raw : base::SplitLines(text)) {
    std::string line = Trim(raw);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line[0] == '[') {
      cur = nullptr;
      const size_t close = line.rfind(']');
      std::string header =
          Trim(std::string_view(line).substr(1, close == std::string::npos ? std::string::npos : close - 1));
      if (Lower(header.substr(0, 9)) != "submodule") continue;
      std::string name = Trim(std::string_view(header).substr(9));
      if (name.size() >= 2 && name.front() == '"' && name.back() == '"') name = name.substr(1, name.size() - 2);
      out.push_back({name, "", "", ""});
      cur = &out.back();
      continue;
    }
    if (cur == nullptr) continue;
    const size_t eq = line.find('=');
    std::string key = Lower(Trim(std::string_view(line).substr(0, eq)));
    std::string value = eq == std::string::npos ? "" : ConfigValue(std::string_view(line).substr(eq + 1));
    if (key == "path")
      cur->path = value;
    else if (key == "url")
      cur->url = value;
    else if (key == "branch")
      cur->branch = value;
  }
  out.erase(std::remove_if(out.begin(), out.end(), [](const SubmoduleEntry& e) { return e.path.empty(); }), out.end());
  return out;
}

std::vector<std::string> GitignorePatterns(const std::string& text) {
  std::vector<std::string> out;
  for (std::string_view raw : base::SplitLines(text)) {
    std::string line = Trim(raw);
    if (line.empty() || line[0] == '#' || line[0] == '!') continue;
    while (!line.empty() && line.front() == '/') line.erase(0, 1);
    while (!line.empty() && line.back() == '/') line.pop_back();
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

bool ArtifactIgnored(const std::vector<std::string>& patterns, const std::string& gitignore_dir,
                     const std::string& ops_dir, const std::string& target) {
  for (const auto& p : patterns) {
    if (Basename(p) != target) continue;
    const std::string dir = Dirname(p);
    if (dir.empty()) return true;  // matches the name anywhere
    const std::string full = gitignore_dir.empty() ? dir : gitignore_dir + "/" + dir;
    if (full == ops_dir || EndsWithPath(ops_dir, dir) || EndsWithPath(ops_dir, full)) return true;
  }
  return false;
}

std::vector<std::string> TestConfigCases(const std::string& text) {
  std::vector<std::string> out;
  for (std::string_view raw : base::SplitLines(text)) {
    std::string line = Trim(raw);
    if (!line.empty() && line[0] == '-') line = Trim(std::string_view(line).substr(1));
    if (line.rfind("test_case:", 0) != 0) continue;
    std::string value = line.substr(10);
    if (size_t hash = value.find(" #"); hash != std::string::npos) value.resize(hash);
    std::string item;
    for (char c : value + ",") {
      if (c == '[' || c == ']' || c == '"' || c == '\'') continue;
      if (c == ',') {
        item = Trim(item);
        if (!item.empty()) out.push_back(item);
        item.clear();
      } else {
        item += c;
      }
    }
  }
  return out;
}

std::string IntegratorLayout::OpsDir() const { return Dirname(loader); }
std::string IntegratorLayout::BuildUtilsDir() const { return Dirname(build_utils); }

}  // namespace forkscope::analyzer::integration
