// File roles, the package to import, and the validation path (build -> import -> smoke) inferred
// from what the repository holds.

#include <algorithm>

#include "analyzer/model/python_package.h"
#include "analyzer/patterns/pattern_mining.h"
#include "analyzer/planner/planner_internal.h"

namespace forkscope::analyzer::planner {
namespace {

std::string_view BaseName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool EndsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

bool InDir(std::string_view path, std::initializer_list<std::string_view> dirs) {
  for (auto d : dirs) {
    const std::string prefix = std::string(d) + "/";
    if (StartsWith(path, prefix) || path.find("/" + prefix) != std::string_view::npos) return true;
  }
  return false;
}

const SourceFile* Find(const std::vector<SourceFile>& files, std::string_view path) {
  for (const auto& f : files)
    if (f.path == path) return &f;
  return nullptr;
}

std::string ShellQuoteDouble(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\' || c == '$' || c == '`') out += '\\';
    out += c;
  }
  return out + "\"";
}

bool UsesGpu(const SourceFile& f) {
  return f.text.find("cuda") != std::string::npos || f.text.find("device") != std::string::npos;
}

// The smallest test file that runs on the GPU (it exercises the extension), else the smallest test
// file, else the smallest example script: the minimal functional test.
const SourceFile* SmokeScript(const std::vector<SourceFile>& files, bool& is_test) {
  const SourceFile* best = nullptr;
  for (int pass = 0; pass < 3 && best == nullptr; ++pass) {
    for (const auto& f : files) {
      const std::string_view base = BaseName(f.path);
      const bool test = StartsWith(base, "test_") && EndsWith(base, ".py");
      const bool example = InDir(f.path, {"examples", "example"}) && EndsWith(base, ".py") && base != "__init__.py";
      const bool candidate = pass == 0 ? test && UsesGpu(f) : pass == 1 ? test : example;
      if (candidate && (best == nullptr || f.text.size() < best->text.size())) best = &f;
    }
    is_test = pass < 2;
  }
  return best;
}

}  // namespace

FileRole RoleOf(std::string_view path) {
  if (InDir(path, {"third_party", "3rdparty", "thirdparty", "vendor", "external", "docs", "doc"}) ||
      StartsWith(path, ".git/"))
    return FileRole::kSkip;
  const std::string_view base = BaseName(path);
  if (StartsWith(path, ".github/workflows/") && (EndsWith(base, ".yml") || EndsWith(base, ".yaml")))
    return FileRole::kCi;
  if (base == "setup.py" || (StartsWith(base, "setup_") && EndsWith(base, ".py")) || base == "build_backend.py")
    return FileRole::kBuildEntry;
  if (base == "pyproject.toml" || base == "setup.cfg" || (StartsWith(base, "requirements") && EndsWith(base, ".txt")) ||
      (StartsWith(base, "environment") && (EndsWith(base, ".yml") || EndsWith(base, ".yaml"))))
    return FileRole::kDependency;
  if (base == "CMakeLists.txt" || EndsWith(base, ".cmake")) return FileRole::kCMake;
  const FileKind kind = FileKindOf(path);
  if (kind == FileKind::kCxx) return FileRole::kCxx;
  if (kind != FileKind::kPython) return FileRole::kSkip;
  if (InDir(path, {"tests", "test", "examples", "example", "benchmarks", "benchmark"}) || StartsWith(base, "test_") ||
      EndsWith(base, "_test.py") || base == "conftest.py")
    return FileRole::kTestScript;
  return FileRole::kPackagePython;
}

std::string InferPackage(const std::vector<SourceFile>& files) {
  // The one package detection (analyzer/model/python_package.h), shared with the analysis' validation path.
  std::vector<std::string> paths;
  paths.reserve(files.size());
  for (const auto& f : files) paths.push_back(f.path);
  const auto packages = DetectPythonPackages(paths, [&files](const std::string& path) {
    const SourceFile* f = Find(files, path);
    return f ? f->text : std::string();
  });
  return packages.empty() ? "" : packages.front();
}

std::vector<ValidationStep> InferValidation(const std::vector<SourceFile>& files, const std::string& package) {
  std::vector<ValidationStep> steps;
  const SourceFile* pyproject = Find(files, "pyproject.toml");
  if (Find(files, "setup.py") || (pyproject && pyproject->text.find("[build-system]") != std::string::npos)) {
    steps.push_back({"build", "pip install --no-build-isolation -e .",
                     std::string(Find(files, "setup.py") ? "setup.py" : "pyproject.toml") +
                         ": build in place without isolation, so the build sees the installed paddle",
                     false});
  } else if (Find(files, "CMakeLists.txt")) {
    steps.push_back({"build", "cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j",
                     "CMakeLists.txt at the root", false});
  }
  if (!package.empty()) {
    const std::string code = "import paddle; paddle.enable_compat(scope={'" + package + "'}); import " + package;
    steps.push_back({"import", "python -c " + ShellQuoteDouble(code),
                     "package directory " + package + "/ with the proxy scoped to it", false});
  }
  bool is_test = false;
  if (const SourceFile* smoke = SmokeScript(files, is_test)) {
    const bool gpu = UsesGpu(*smoke);
    steps.push_back({"smoke", is_test ? "python -m pytest -x -q " + smoke->path : "python " + smoke->path,
                     std::string(is_test ? "the smallest test file" : "the smallest example script") +
                         (gpu ? "; it uses the GPU" : ""),
                     gpu});
  }
  return steps;
}

}  // namespace forkscope::analyzer::planner
