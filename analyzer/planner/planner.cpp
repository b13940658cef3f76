// The planner's scan: probes (RE2 over each line of the files of one role) make touchpoints; kernels,
// schemas, registrations and the package layout make the keep list; C++ APIs that migrated forks
// bridged make the compat-gap strategy.
#include "analyzer/planner/planner.h"

#include <re2/re2.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include "analyzer/classify/classifier.h"
#include "analyzer/planner/planner_internal.h"
#include "base/text.h"

namespace forkscope::analyzer {
namespace {

using planner::FileRole;

constexpr int kMaxSitesPerProbe = 10;  // call sites reported per probe and file

struct Probe {
  std::vector<FileRole> roles;
  const char* regex;
  Layer layer;
  const char* pattern;
  const char* reason;
  bool first_only;  // one touchpoint per file (entry points) rather than every call site
  // The first round of changes (the guide: build, entry points, what the proxy does not serve), or only
  // if a build, import or test shows the compat layer does not cover it.
  TouchpointWhen when;
};

// The touchpoint probes (a data table; read only once main has started, through CompiledProbes and the
// file scan).
const std::vector<Probe> kProbes = {
    {{FileRole::kBuildEntry},
     R"(^\s*(?:from\s+torch\.utils\.cpp_extension\s+import|from\s+torch\.utils\s+import\s+cpp_extension|import\s+torch\.utils\.cpp_extension))",
     Layer::kBuild,
     "build.global-enable-compat",
     "add `import paddle; paddle.enable_compat()` just before this torch cpp_extension import (the proxy serves "
     "it); switch to paddle.utils.cpp_extension only where the proxy does not cover",
     true,
     TouchpointWhen::kFirst},
    {{FileRole::kBuildEntry},
     R"(\b(?:include_dirs|library_dirs|extra_compile_args|extra_link_args|define_macros)\b|TORCH_CUDA_ARCH_LIST)",
     Layer::kBuild,
     "build.flags-edit",
     "include/library dirs, flags, macros or CUDA arch list: adjust only if the build cannot find Paddle's headers "
     "or libraries",
     true,
     TouchpointWhen::kIfNeeded},
    {{FileRole::kDependency},
     R"((?i)(?:^|[\s"'\[,])torch(?:\s*[<>=!~]|\s*["',\]]|\s*;|\s*$))",
     Layer::kBuild,
     "build.dependency-pin",
     "torch dependency: require paddlepaddle(-gpu) instead (the compat layer provides torch)",
     false,
     TouchpointWhen::kFirst},
    {{FileRole::kCMake},
     R"(find_package\s*\(\s*Torch\b|\bTORCH_LIBRARIES\b|\bTorch_DIR\b|torch/share/cmake)",
     Layer::kBuild,
     "build.flags-edit",
     "CMake finds libtorch: point it at Paddle's compat headers and libraries",
     true,
     TouchpointWhen::kFirst},
    {{FileRole::kCi},
     R"(pip3?\s+install\b.*\btorch\b|download\.pytorch\.org)",
     Layer::kBuild,
     "build.dependency-pin",
     "CI installs torch: when the fork runs its CI on Paddle, install paddlepaddle(-gpu) there",
     true,
     TouchpointWhen::kIfNeeded},
    {{FileRole::kPackagePython, FileRole::kTestScript, FileRole::kBuildEntry},
     R"(\btorch\.(?:ops|library)\.)",
     Layer::kPython,
     "python.torch-ops-call-site",
     "torch.ops / torch.library call site: check the op resolves through the proxy; change it only if it fails",
     false,
     TouchpointWhen::kIfNeeded},
    {{FileRole::kPackagePython, FileRole::kTestScript},
     R"(\btorch\._dynamo\b|\btorch\.compiler?\b|\btorch\.profiler\b)",
     Layer::kPython,
     "python.dynamo-profiler-guard",
     "torch._dynamo / torch.compile / torch.profiler are not served by the proxy: guard them or use paddle.profiler",
     false,
     TouchpointWhen::kFirst},
    {{FileRole::kPackagePython, FileRole::kTestScript},
     R"(\btorch\.cuda\.(?:current_stream|default_stream|Stream|stream|Event|set_device|current_device|synchronize|device)\b|\btorch\.distributed\b|\bdist\.(?:init_process_group|all_reduce|all_gather\w*|barrier|get_rank|get_world_size|new_group|broadcast)\b|(?i:dlpack)|\btorch\.device\s*\()",
     Layer::kPython,
     "python.device-stream-glue",
     "device / stream / distributed / DLPack glue: check the proxy covers it; rewire to paddle.device or "
     "paddle.distributed where it does not",
     false,
     TouchpointWhen::kIfNeeded},
    {{FileRole::kPackagePython},
     R"(\btorch\.ops\.load_library\b|\bctypes\.(?:CDLL|cdll\.LoadLibrary)\b)",
     Layer::kPython,
     "python.lib-preload",
     "extension loading: libpaddle.so (and CUDA libraries) may have to be loaded before the extension",
     false,
     TouchpointWhen::kIfNeeded},
    {{FileRole::kCxx},
     R"(\b(?:at|c10)::cuda::(?:getCurrentCUDAStream|getDefaultCUDAStream|getStreamFromPool|CUDAStreamGuard|CUDAStream)\b|\bc10::Stream\b)",
     Layer::kCppCompat,
     "cpp_compat.stream-rewire",
     "stream access through ATen/c10: check it compiles against the compat headers; rewire it to Paddle's stream "
     "only if it does not",
     false,
     TouchpointWhen::kIfNeeded},
    {{FileRole::kCxx},
     R"(\bc10d::|\bProcessGroup\w*|\bncclComm_t\b|\btorch::distributed\b)",
     Layer::kCppCompat,
     "cpp_compat.distributed-boundary",
     "distributed boundary (process group / NCCL communicator): map it to Paddle's process group by ring id",
     false,
     TouchpointWhen::kFirst},
};

const std::vector<std::unique_ptr<RE2>>& CompiledProbes() {
  static const std::vector<std::unique_ptr<RE2>> kCompiled = [] {
    std::vector<std::unique_ptr<RE2>> out;
    for (const auto& p : kProbes) out.push_back(std::make_unique<RE2>(p.regex));
    return out;
  }();
  return kCompiled;
}

// "line 3 reads `from torch.utils.cpp_extension import ...`": the code a touchpoint was found at.
std::string Quote(std::string_view line, size_t index) {
  constexpr size_t kShown = 72;
  const size_t first = line.find_first_not_of(" \t");
  line = first == std::string_view::npos ? std::string_view() : line.substr(first);
  while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.remove_suffix(1);
  std::string code(line.substr(0, kShown));
  if (line.size() > kShown) code += "…";
  for (char& c : code)
    if (c == '`') c = '\'';
  return "line " + std::to_string(index + 1) + " reads `" + code + "`";
}

bool IsCommentLine(std::string_view line, FileRole role) {
  const size_t i = line.find_first_not_of(" \t");
  if (i == std::string_view::npos) return true;
  if (role == FileRole::kCxx) return line.compare(i, 2, "//") == 0 || line[i] == '*';
  return line[i] == '#';
}

std::string DirOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

// Test directories that have a conftest.py: one scoped enable_compat there covers the tree.
std::set<std::string> ConftestDirs(const std::vector<SourceFile>& files) {
  std::set<std::string> dirs;
  for (const auto& f : files)
    if (f.path == "conftest.py" || (f.path.size() > 12 && f.path.compare(f.path.size() - 12, 12, "/conftest.py") == 0))
      dirs.insert(DirOf(f.path));
  return dirs;
}

bool UnderConftest(const std::string& path, const std::set<std::string>& dirs) {
  if (path.size() >= 11 && path.compare(path.size() - 11, 11, "conftest.py") == 0) return false;
  return std::any_of(dirs.begin(), dirs.end(), [&](const std::string& d) { return path.rfind(d, 0) == 0; });
}

class Scanner {
 public:
  Scanner(const Rules& rules, const Experience& experience, MigrationPlan& plan)
      : rules_(rules), experience_(experience), plan_(plan) {}

  void Run(const std::vector<SourceFile>& files) {
    conftest_dirs_ = ConftestDirs(files);
    CompileBridged();
    for (const auto& f : files) {
      const FileRole role = planner::RoleOf(f.path);
      if (role == FileRole::kSkip) continue;
      const std::vector<std::string_view> lines = base::SplitLines(f.text);
      const size_t before = plan_.touchpoints.size();
      RunProbes(f, role, lines);
      if (role == FileRole::kTestScript) EntryScript(f, lines);
      if (role == FileRole::kCxx) BridgedApis(f, lines);
      Keep(f, role, lines, plan_.touchpoints.size() > before);
    }
  }

 private:
  void Add(const SourceFile& f, int line, Layer layer, const std::string& pattern, const std::string& reason,
           TouchpointWhen when, std::string why) {
    plan_.touchpoints.push_back({f.path, line, layer, reason, pattern, {}, when, std::move(why)});
  }

  void RunProbes(const SourceFile& f, FileRole role, const std::vector<std::string_view>& lines) {
    const auto& probes = kProbes;
    for (size_t p = 0; p < probes.size(); ++p) {
      const Probe& probe = probes[p];
      if (std::find(probe.roles.begin(), probe.roles.end(), role) == probe.roles.end()) continue;
      int sites = 0;
      for (size_t i = 0; i < lines.size() && sites < kMaxSitesPerProbe; ++i) {
        if (IsCommentLine(lines[i], role) || !RE2::PartialMatch(lines[i], *CompiledProbes()[p])) continue;
        Add(f, static_cast<int>(i + 1), probe.layer, probe.pattern, probe.reason, probe.when, Quote(lines[i], i));
        ++sites;
        if (probe.first_only) break;
      }
    }
  }

  // Test, example and benchmark scripts (and conftest.py): the scoped proxy goes before the first
  // torch or package import. Scripts under a directory with a conftest.py are covered by it.
  void EntryScript(const SourceFile& f, const std::vector<std::string_view>& lines) {
    if (UnderConftest(f.path, conftest_dirs_)) return;
    const bool conftest = f.path.size() >= 11 && f.path.compare(f.path.size() - 11, 11, "conftest.py") == 0;
    const std::string pkg = plan_.package.empty() ? "torch" : plan_.package;
    const RE2 import("^\\s*(?:import|from)\\s+(?:torch|" + RE2::QuoteMeta(pkg) + ")\\b");
    for (size_t i = 0; i < lines.size(); ++i) {
      if (!RE2::PartialMatch(lines[i], import)) continue;
      Add(f, static_cast<int>(i + 1), Layer::kPython, "python.scoped-enable-compat",
          "call `paddle.enable_compat(scope={\"" + pkg + "\"})` before this import", TouchpointWhen::kFirst,
          Quote(lines[i], i) + ", the script's first torch or package import");
      return;
    }
    if (conftest)
      Add(f, 1, Layer::kPython, "python.scoped-enable-compat",
          "conftest.py runs before every test here: call `paddle.enable_compat(scope={\"" + pkg + "\"})` in it",
          TouchpointWhen::kFirst, "pytest loads conftest.py before the tests under " + DirOf(f.path));
  }

  void CompileBridged() {
    for (const auto& api : experience_.bridged) {
      if (api.api_key.empty() || api.api_key == "unknown") continue;
      bridged_.push_back({&api, std::make_unique<RE2>("(?:::|\\.|->)\\s*" + RE2::QuoteMeta(api.api_key) + "\\b")});
    }
  }

  void BridgedApis(const SourceFile& f, const std::vector<std::string_view>& lines) {
    for (const auto& [api, re] : bridged_) {
      for (size_t i = 0; i < lines.size(); ++i) {
        if (IsCommentLine(lines[i], FileRole::kCxx) || !RE2::PartialMatch(lines[i], *re)) continue;
        const int line = static_cast<int>(i + 1);
        std::string forks;
        for (const auto& fork : api->forks) forks += (forks.empty() ? "" : ", ") + fork;
        Add(f, line, Layer::kCppCompat, "cpp_compat.pd-bridge",
            api->api + " was bridged by " + forks +
                ": expect the same compat gap; bridge this one call and state "
                "its Remove-When condition",
            TouchpointWhen::kFirst,
            Quote(lines[i], i) + ": it calls " + api->api + ", which Paddle's compat layer lacks (" +
                std::to_string(api->occurrences) + " bridge(s) in " + std::to_string(api->forks.size()) + " fork(s))");
        Strategy(*api).uses.push_back({f.path, line});
      }
    }
  }

  GapStrategy& Strategy(const BridgedApi& api) {
    for (auto& g : plan_.gaps)
      if (g.api_key == api.api_key) return g;
    plan_.gaps.push_back({api.api, api.api_key, {}, api.forks, api.occurrences, api.bridges, api.issues});
    return plan_.gaps.back();
  }

  void Keep(const SourceFile& f, FileRole role, const std::vector<std::string_view>& lines, bool touched) {
    const Layer path_layer = ClassifyPath(rules_, f.path);
    auto add = [&](Layer layer, std::string reason) {
      plan_.keep.push_back({f.path, layer, std::move(reason), !touched});
    };
    auto first = [&](const RE2& re) -> int {
      for (size_t i = 0; i < lines.size(); ++i)
        if (!IsCommentLine(lines[i], role) && RE2::PartialMatch(lines[i], re)) return static_cast<int>(i + 1);
      return 0;
    };
    static const RE2 kDevice(R"(__global__|__device__)");
    static const RE2 kSchema(R"(\bTORCH_LIBRARY(?:_FRAGMENT)?\s*\(|\btorch\.library\.(?:define|custom_op)\b)");
    static const RE2 kRegistration(R"(\bTORCH_LIBRARY_IMPL\s*\(|\bPYBIND11_MODULE\s*\(|\.impl\s*\()");
    static const RE2 kTorchApi(R"(\b(?:at|c10|torch)::|#\s*include\s*[<"](?:torch|ATen|c10)/)");
    static const RE2 kPyKernel(R"(@\s*(?:triton\.(?:jit|autotune|heuristics)|tilelang\.jit|T\.prim_func)\b)");
    const std::string where = touched ? " (outside the touchpoint lines)" : "";
    if (role == FileRole::kCxx) {
      if (int l = first(kDevice))
        add(Layer::kKernel,
            "device kernels (first at line " + std::to_string(l) + ") stay as upstream wrote them" + where);
      if (int l = first(kSchema))
        add(Layer::kCppCompat, "op schema definitions (line " + std::to_string(l) + ") stay unchanged" + where);
      if (int l = first(kRegistration))
        add(Layer::kCppCompat, "TORCH_LIBRARY_IMPL / pybind11 registration (line " + std::to_string(l) +
                                   ") stays until a build or run really fails" + where);
      else if (!first(kDevice) && first(kTorchApi))
        add(Layer::kCppCompat,
            "torch-style C++ compiles against Paddle's compat headers; change only where it fails" + where);
      else if (!first(kDevice) && !first(kTorchApi))
        add(path_layer, "framework-independent C++: no reason to touch it" + where);
    } else if (role == FileRole::kPackagePython || role == FileRole::kTestScript) {
      if (int l = first(kPyKernel))
        add(Layer::kKernel, "Triton/TileLang kernels (first at line " + std::to_string(l) + ") stay" + where);
      if (int l = first(kSchema))
        add(Layer::kPython, "op schema definitions (line " + std::to_string(l) + ") stay unchanged" + where);
    }
  }

  const Rules& rules_;
  const Experience& experience_;
  MigrationPlan& plan_;
  std::set<std::string> conftest_dirs_;
  std::vector<std::pair<const BridgedApi*, std::unique_ptr<RE2>>> bridged_;
};

// The package directory and other top-level source trees: the upstream layout stays.
void KeepLayout(const std::vector<SourceFile>& files, MigrationPlan& plan) {
  std::set<std::string> cxx_roots;
  for (const auto& f : files) {
    const size_t slash = f.path.find('/');
    if (slash != std::string::npos && planner::RoleOf(f.path) == FileRole::kCxx)
      cxx_roots.insert(f.path.substr(0, slash + 1));
  }
  if (!plan.package.empty())
    plan.keep.push_back({plan.package + "/", Layer::kPython,
                         "package layout: keep the directory name and module shape (no torch_x -> paddle_x rename, "
                         "no moved files)",
                         true});
  for (const auto& root : cxx_roots)
    plan.keep.push_back({root, Layer::kKernel, "C++/CUDA source layout: files stay where upstream keeps them", true});
}

}  // namespace

const char* TouchpointWhenName(TouchpointWhen when) { return when == TouchpointWhen::kFirst ? "first" : "if-needed"; }

MigrationPlan PlanMigration(const Rules& rules, const std::vector<SourceFile>& files, const Experience& experience) {
  MigrationPlan plan;
  plan.package = planner::InferPackage(files);
  Scanner(rules, experience, plan).Run(files);
  KeepLayout(files, plan);
  std::stable_sort(plan.touchpoints.begin(), plan.touchpoints.end(), [](const Touchpoint& a, const Touchpoint& b) {
    if (a.layer != b.layer) return static_cast<int>(a.layer) < static_cast<int>(b.layer);
    return a.path != b.path ? a.path < b.path : a.line < b.line;
  });
  // The APIs bridged by most forks first: the ones whose workaround is best understood.
  std::stable_sort(plan.gaps.begin(), plan.gaps.end(), [](const GapStrategy& a, const GapStrategy& b) {
    return a.forks.size() != b.forks.size() ? a.forks.size() > b.forks.size() : a.occurrences > b.occurrences;
  });
  // A call another fork bridged is one change, the bridge: not also a stream access to rewire.
  std::set<std::pair<std::string, int>> bridged;
  for (const Touchpoint& t : plan.touchpoints)
    if (t.pattern == "cpp_compat.pd-bridge") bridged.insert({t.path, t.line});
  plan.touchpoints.erase(
      std::remove_if(plan.touchpoints.begin(), plan.touchpoints.end(),
                     [&](const Touchpoint& t) {
                       return t.pattern == "cpp_compat.stream-rewire" && bridged.count({t.path, t.line}) > 0;
                     }),
      plan.touchpoints.end());
  plan.validation = planner::InferValidation(files, plan.package);
  planner::RankSimilarForks(experience, plan);
  if (plan.touchpoints.empty())
    plan.notes.push_back("no torch build, import or call site found: is this a PyTorch custom-op library?");
  if (experience.forks.empty())
    plan.notes.push_back("no migrated fork is analysed yet: similar forks and worked examples need at least one");
  if (plan.gaps.empty() && !experience.bridged.empty())
    plan.notes.push_back("none of the C++ APIs other forks had to bridge is used here");
  return plan;
}

}  // namespace forkscope::analyzer
