// DetectPythonPackages: a reader of the few shapes setup.py and pyproject.toml declare packages in
// (keyword arguments and TOML keys, not a Python or TOML parser), then the tree's own packages.
#include "analyzer/model/python_package.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>
#include <string_view>

namespace forkscope::analyzer {
namespace {

bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool IsIdentifier(std::string_view s) {
  return !s.empty() && !std::isdigit(static_cast<unsigned char>(s[0])) && std::all_of(s.begin(), s.end(), IsIdentChar);
}

// '*' and '?' globbing, as setuptools' include/exclude patterns use.
bool Glob(std::string_view text, std::string_view pattern) {
  if (pattern.empty()) return text.empty();
  if (pattern[0] == '*') return Glob(text, pattern.substr(1)) || (!text.empty() && Glob(text.substr(1), pattern));
  if (text.empty()) return false;
  return (pattern[0] == '?' || pattern[0] == text[0]) && Glob(text.substr(1), pattern.substr(1));
}

// The end of the bracketed span opening at text[open] ('[', '(' or '{'), strings skipped; npos if unclosed.
size_t SpanEnd(std::string_view text, size_t open) {
  int depth = 0;
  for (size_t i = open; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"' || c == '\'') {
      const size_t close = text.find(c, i + 1);
      if (close == std::string_view::npos) return close;
      i = close;
    } else if (c == '[' || c == '(' || c == '{') {
      ++depth;
    } else if ((c == ']' || c == ')' || c == '}') && --depth == 0) {
      return i;
    }
  }
  return std::string_view::npos;
}

// Every quoted string in text.
std::vector<std::string> Literals(std::string_view text) {
  std::vector<std::string> out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '"' && text[i] != '\'') continue;
    const size_t close = text.find(text[i], i + 1);
    if (close == std::string_view::npos) break;
    out.emplace_back(text.substr(i + 1, close - i - 1));
    i = close;
  }
  return out;
}

// The value after `key =` (a keyword argument or a TOML key): its bracketed span, its quoted string,
// or the call that follows (`find_packages(...)`, returned with its name). Only a key not preceded by an
// identifier character counts (`packages=` but not `install_packages=`).
std::optional<std::string_view> ValueOf(std::string_view text, std::string_view key) {
  for (size_t at = text.find(key); at != std::string_view::npos; at = text.find(key, at + 1)) {
    if (at > 0 && (IsIdentChar(text[at - 1]) || text[at - 1] == '.')) continue;
    size_t i = at + key.size();
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    if (i >= text.size() || text[i] != '=' || (i + 1 < text.size() && text[i + 1] == '=')) continue;
    ++i;
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i >= text.size()) return std::nullopt;
    size_t start = i;
    while (i < text.size() && (IsIdentChar(text[i]) || text[i] == '.')) ++i;  // a call's name
    if (i < text.size() && (text[i] == '[' || text[i] == '(' || text[i] == '{')) {
      const size_t end = SpanEnd(text, i);
      if (end == std::string_view::npos) return std::nullopt;
      return text.substr(start, end + 1 - start);
    }
    if (i == start && (text[i] == '"' || text[i] == '\'')) {
      const size_t close = text.find(text[i], i + 1);
      if (close == std::string_view::npos) return std::nullopt;
      return text.substr(i, close + 1 - i);
    }
  }
  return std::nullopt;
}

// A TOML table's body: from its `[name]` header to the next header.
std::string_view TomlTable(std::string_view text, std::string_view name) {
  const std::string header = "[" + std::string(name) + "]";
  for (size_t at = text.find(header); at != std::string_view::npos; at = text.find(header, at + 1)) {
    if (at > 0 && text[at - 1] != '\n') continue;
    const size_t body = at + header.size();
    const size_t next = text.find("\n[", body);  // the next table (or array of tables)
    return text.substr(body, next == std::string_view::npos ? std::string_view::npos : next - body);
  }
  return {};
}

std::string TopLevel(const std::string& dotted) {
  std::string top = dotted.substr(0, dotted.find('.'));
  const size_t slash = top.rfind('/');  // hatch names a path: "src/pkg"
  return slash == std::string::npos ? top : top.substr(slash + 1);
}

std::string Normalized(std::string name) {
  std::replace(name.begin(), name.end(), '-', '_');
  std::replace(name.begin(), name.end(), '.', '_');
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  return name;
}

// What setup.py or pyproject.toml declare.
struct Declared {
  std::vector<std::string> packages;  // explicit lists, top-level names in order
  std::vector<std::string> include;   // find_packages patterns
  std::vector<std::string> exclude;
  bool found_packages = false;  // a find_packages call or find table was seen
  std::string name;             // the distribution's name
};

// The arguments of the `setup(` call (an extension's own `name=` comes before it), else the whole text.
std::string_view SetupCall(std::string_view text) {
  for (size_t at = text.find("setup("); at != std::string_view::npos; at = text.find("setup(", at + 1)) {
    if (at > 0 && IsIdentChar(text[at - 1])) continue;  // `setuptools.setup(` counts, `my_setup(` does not
    const size_t end = SpanEnd(text, at + 5);
    if (end != std::string_view::npos) return text.substr(at + 5, end - at - 4);
  }
  return text;
}

void ReadSetupPy(std::string_view file, Declared& d) {
  const std::string_view text = SetupCall(file);
  if (auto v = ValueOf(text, "packages")) {
    if (v->front() == '[' || v->front() == '(') {
      for (const auto& p : Literals(*v)) d.packages.push_back(TopLevel(p));
    } else if (v->find("packages(") != std::string_view::npos) {
      d.found_packages = true;
      const std::string_view args = v->substr(v->find('('));
      if (auto inc = ValueOf(args, "include")) d.include = Literals(*inc);
      if (auto exc = ValueOf(args, "exclude")) d.exclude = Literals(*exc);
    }
  }
  if (auto v = ValueOf(text, "name"); v && (v->front() == '"' || v->front() == '\''))
    d.name = std::string(v->substr(1, v->size() - 2));
}

void ReadPyproject(std::string_view text, Declared& d) {
  for (const char* table : {"tool.setuptools", "tool.hatch.build.targets.wheel"})
    if (auto v = ValueOf(TomlTable(text, table), "packages"); v && v->front() == '[')
      for (const auto& p : Literals(*v)) d.packages.push_back(TopLevel(p));
  if (auto v = ValueOf(TomlTable(text, "tool.poetry"), "packages"); v && v->front() == '[')  // [{ include = "x" }]
    for (size_t at = v->find("include"); at != std::string_view::npos; at = v->find("include", at + 1))
      if (auto inc = ValueOf(v->substr(at), "include"); inc && inc->front() == '"')
        d.packages.push_back(TopLevel(std::string(inc->substr(1, inc->size() - 2))));
  const std::string_view find = TomlTable(text, "tool.setuptools.packages.find");
  if (!find.empty()) {
    d.found_packages = true;
    if (auto inc = ValueOf(find, "include")) d.include = Literals(*inc);
    if (auto exc = ValueOf(find, "exclude")) d.exclude = Literals(*exc);
  }
  for (const char* table : {"project", "tool.poetry"})
    if (auto v = ValueOf(TomlTable(text, table), "name"); d.name.empty() && v && v->front() == '"')
      d.name = std::string(v->substr(1, v->size() - 2));
}

bool Matches(const std::string& top, const std::vector<std::string>& patterns) {
  return std::any_of(patterns.begin(), patterns.end(),
                     [&top](const std::string& p) { return Glob(top, p) || Glob(top, p.substr(0, p.find('.'))); });
}

}  // namespace

bool IsNonPackageDirectory(const std::string& name) {
  static const std::set<std::string> kNot = {
      "test",       "tests",   "testing",  "docs",  "doc",      "examples", "example", "benchmarks",  "benchmark",
      "bench",      "scripts", "tools",    "ci",    "csrc",     "build",    "dist",    "third_party", "3rdparty",
      "thirdparty", "vendor",  "external", "setup", "conftest", "cmake",    "docker",  "assets"};
  const std::string lower = Normalized(name);
  if (kNot.count(lower)) return true;
  auto ends = [&lower](std::string_view s) {
    return lower.size() > s.size() && lower.compare(lower.size() - s.size(), s.size(), s) == 0;
  };
  return lower.rfind("test_", 0) == 0 || lower.rfind("tests_", 0) == 0 || ends("_test") || ends("_tests");
}

std::vector<std::string> DetectPythonPackages(const std::vector<std::string>& paths, const RootFileReader& read) {
  std::vector<std::string> tree;  // top-level package directories, in path order
  for (const auto& path : paths) {
    std::string_view p = path;
    for (std::string_view prefix : {"src/", "python/"})
      if (p.substr(0, prefix.size()) == prefix) p.remove_prefix(prefix.size());
    const size_t slash = p.find('/');
    if (slash == std::string_view::npos || p.substr(slash) != "/__init__.py") continue;
    const std::string dir(p.substr(0, slash));
    if (IsIdentifier(dir) && std::find(tree.begin(), tree.end(), dir) == tree.end()) tree.push_back(dir);
  }
  std::sort(tree.begin(), tree.end());
  Declared d;
  ReadSetupPy(read("setup.py"), d);
  ReadPyproject(read("pyproject.toml"), d);
  auto in_tree = [&tree](const std::string& p) { return std::find(tree.begin(), tree.end(), p) != tree.end(); };
  std::vector<std::string> out;
  for (const auto& p : d.packages)
    if (in_tree(p) && std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  if (!out.empty()) return out;
  for (const auto& p : tree) {
    if (d.found_packages && !d.include.empty() && !Matches(p, d.include)) continue;
    if (Matches(p, d.exclude)) continue;
    // An explicit include names the package even when it looks like tooling; otherwise tests and tooling go.
    if (!(d.found_packages && !d.include.empty()) && IsNonPackageDirectory(p)) continue;
    out.push_back(p);
  }
  const std::string name = Normalized(d.name);
  auto named = std::find_if(out.begin(), out.end(), [&name](const std::string& p) { return Normalized(p) == name; });
  if (named != out.end()) std::rotate(out.begin(), named, named + 1);
  return out;
}

}  // namespace forkscope::analyzer
