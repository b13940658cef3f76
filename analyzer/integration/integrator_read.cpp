// ReadIntegrator: one walk of the integrator's tree (analyzer/git/tree_read.h), one parse helper run
// for its Python files, then each submodule matched to a registered fork and judged
// (integrator_library.cpp).

#include <algorithm>
#include <map>

#include "analyzer/git/tree_read.h"
#include "analyzer/integration/eager_import.h"
#include "analyzer/integration/integrator.h"
#include "analyzer/integration/integrator_internal.h"
#include "base/clock.h"
#include "base/log.h"
#include "base/url.h"

namespace forkscope::analyzer::integration {
namespace {

using nlohmann::json;

std::string Basename(std::string_view path) {
  size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The files an integrator's sync reads.
bool Wanted(std::string_view path) {
  const std::string base = Basename(path);
  return path == ".gitmodules" || base == ".gitignore" || base == "build_utils.py" || base == "test_ops_import.py" ||
         base == "test_configs.yaml" || EndsWith(path, "paddlefleet_ops/__init__.py") ||
         EndsWith(path, "paddlefleet/ops/__init__.py");
}

// The file among candidates that best fits: the one whose text holds marker, shallowest first.
std::string Pick(const std::map<std::string, std::string>& files, std::string_view base, std::string_view marker,
                 bool by_suffix = false) {
  std::string best;
  for (const auto& [path, text] : files) {
    const bool named = by_suffix ? EndsWith(path, base) : Basename(path) == base;
    if (!named || text.find(marker) == std::string::npos) continue;
    if (best.empty() || std::count(path.begin(), path.end(), '/') < std::count(best.begin(), best.end(), '/'))
      best = path;
  }
  return best;
}

// The answer entries of the helper by path.
std::map<std::string, json> ByPath(const json& answer) {
  std::map<std::string, json> out;
  for (const auto& f : answer.value("files", json::array()))
    if (f.is_object()) out[f.value("path", "")] = f;
  return out;
}

IntegratorFiles ParseFiles(const git::TreeRead& tree, const ReadOptions& options, std::vector<std::string>& notices,
                           Status& status, int64_t& cpu_us) {
  IntegratorFiles files;
  auto text = [&](const std::string& path) -> const std::string& {
    static const std::string kEmpty;
    auto it = tree.files.find(path);
    return it == tree.files.end() ? kEmpty : it->second;
  };
  if (tree.files.count(".gitmodules") > 0)
    files.submodules = ParseGitmodules(text(".gitmodules"));
  else if (!tree.gitlinks.empty())
    notices.push_back(".gitmodules missing: submodules have no URL");
  for (const auto& [path, body] : tree.files)
    if (Basename(path) == ".gitignore") files.gitignores.emplace_back(path, GitignorePatterns(body));
  files.layout.build_utils = Pick(tree.files, "build_utils.py", "EcosystemLibrary");
  std::string loader = Pick(tree.files, "paddlefleet_ops/__init__.py", "load_ecosystem_lib", true);
  if (loader.empty()) loader = Pick(tree.files, "paddlefleet/ops/__init__.py", "load_ecosystem_lib", true);
  files.layout.loader = loader;
  files.layout.import_test = Pick(tree.files, "test_ops_import.py", "import");
  const std::string configs = Pick(tree.files, "test_configs.yaml", "test_case");
  if (!configs.empty()) files.multi_card_cases = TestConfigCases(text(configs));
  if (EndsWith(loader, "paddlefleet/ops/__init__.py")) files.layout.ops_package = "paddlefleet.ops";

  json request = {{"files", json::array()}};
  if (!files.layout.build_utils.empty())
    request["files"].push_back(
        {{"mode", "build_utils"}, {"path", files.layout.build_utils}, {"text", text(files.layout.build_utils)}});
  if (!loader.empty()) request["files"].push_back({{"mode", "loader"}, {"path", loader}, {"text", text(loader)}});
  if (!files.layout.import_test.empty())
    request["files"].push_back({{"mode", "modules"},
                                {"path", files.layout.import_test},
                                {"module", ""},
                                {"package", false},
                                {"comments", false},
                                {"text", text(files.layout.import_test)}});
  if (request["files"].empty()) {
    notices.push_back(
        "no build_utils.py with EcosystemLibrary, no paddlefleet_ops/__init__.py loader and no "
        "test_ops_import.py: only the submodules were read");
    return files;
  }
  PythonScanStats stats;
  PythonScanOptions scan = options.scan;
  scan.stats = &stats;
  auto answer = RunPythonScan(request, scan);
  cpu_us = stats.cpu_us;
  if (!answer.ok()) {
    status = answer.status();
    return files;
  }
  auto parsed = ByPath(*answer);
  auto error_of = [&](const std::string& path) {
    auto it = parsed.find(path);
    if (it != parsed.end() && it->second.contains("error"))
      notices.push_back(path + " was not parsed: " + it->second.value("error", ""));
  };
  if (auto it = parsed.find(files.layout.build_utils); it != parsed.end()) {
    error_of(files.layout.build_utils);
    files.has_get_libs = it->second.value("get_libs", false);
    if (!files.has_get_libs)
      notices.push_back(files.layout.build_utils + " defines no get_libs(): every EcosystemLibrary call was read");
    for (const auto& l : it->second.value("libraries", json::array())) {
      EcosystemLib lib;
      lib.name = l.value("name", "");
      lib.source_rel_path = l.value("source_rel_path", "");
      lib.line = l.value("line", 0);
      lib.condition = l.value("condition", "");
      for (const auto& a : l.value("artifacts", json::array()))
        if (!a.value("target", "").empty()) lib.artifacts.emplace_back(a.value("source", ""), a.value("target", ""));
      files.libraries.push_back(std::move(lib));
    }
    const json check = it->second.value("submodule_check", json::object());
    files.has_submodule_check = check.value("found", false);
    for (const auto& s : check.value("strings", json::array()))
      if (s.is_string()) files.submodule_check_strings.insert(s.get<std::string>());
  } else if (files.layout.build_utils.empty()) {
    notices.push_back("no build_utils.py with EcosystemLibrary(...) found");
  }
  if (auto it = parsed.find(loader); it != parsed.end()) {
    error_of(loader);
    for (const auto& l : it->second.value("loads", json::array())) {
      LoaderBlock b;
      b.module = l.value("module", "");
      b.guard = l.value("guard", "none");
      b.line = l.value("line", 0);
      for (const auto& s : l.value("scope", json::array()))
        if (s.is_string()) b.scope.push_back(s.get<std::string>());
      for (const auto& s : l.value("extra_libs", json::array()))
        if (s.is_string()) b.extra_libs.push_back(s.get<std::string>());
      files.loads.push_back(std::move(b));
    }
  } else if (loader.empty()) {
    notices.push_back("no paddlefleet_ops/__init__.py calling _safe_load_ecosystem_lib found");
  }
  if (auto it = parsed.find(files.layout.import_test); it != parsed.end()) {
    error_of(files.layout.import_test);
    for (const auto& i : it->second.value("imports", json::array())) {
      files.test_imports.insert(i.value("module", ""));
      for (const auto& n : i.value("names", json::array()))
        if (n.is_string()) files.test_imports.insert(i.value("module", "") + "." + n.get<std::string>());
    }
  }
  return files;
}

// Where submodules live: the directory most gitlinks sit in, when one is named third_party.
void InferThirdParty(const git::TreeRead& tree, IntegratorLayout& layout) {
  std::map<std::string, int> dirs;
  for (const auto& g : tree.gitlinks) {
    size_t slash = g.path.rfind('/');
    if (slash != std::string::npos && Basename(g.path.substr(0, slash)) == "third_party")
      ++dirs[g.path.substr(0, slash)];
  }
  int best = 0;
  for (const auto& [dir, n] : dirs)
    if (n > best) best = n, layout.third_party = dir;
}

}  // namespace

Result<IntegratorReport> ReadIntegrator(const IntegratorSource& source, const std::vector<RegisteredFork>& forks,
                                        const ReadOptions& options) {
  const int64_t start = base::SystemClock().MonotonicUs();
  IntegratorReport report;
  report.name = source.name;
  report.url = base::RedactUrl(source.url);
  report.branch = source.branch;
  FS_ASSIGN_OR_RETURN(git::TreeRead tree, git::ReadTree(source.repo, source.ref, Wanted));
  report.head = tree.commit;
  const int64_t tree_done = base::SystemClock().MonotonicUs();
  report.tree_us = tree_done - start;
  Status parse_status;
  IntegratorFiles files = ParseFiles(tree, options, report.notices, parse_status, report.parse_cpu_us);
  FS_RETURN_IF_ERROR(parse_status);
  const int64_t parse_done = base::SystemClock().MonotonicUs();
  report.parse_us = parse_done - tree_done;
  InferThirdParty(tree, files.layout);
  if (files.layout.build_utils.empty()) files.layout.build_utils = IntegratorLayout().build_utils;
  if (files.layout.loader.empty()) files.layout.loader = IntegratorLayout().loader;
  if (files.layout.import_test.empty()) files.layout.import_test = IntegratorLayout().import_test;

  std::map<std::string, std::string> links;
  for (const auto& g : tree.gitlinks) links[g.path] = g.sha;
  std::vector<bool> matched(forks.size(), false);
  std::map<std::string, const SubmoduleEntry*> entries;
  for (const auto& e : files.submodules) entries[e.path] = &e;
  std::vector<std::string> paths;
  for (const auto& [path, sha] : links) paths.push_back(path);
  for (const auto& e : files.submodules)
    if (links.count(e.path) == 0) paths.push_back(e.path);
  std::sort(paths.begin(), paths.end());
  for (const auto& path : paths) {
    SubmoduleView view;
    view.path = path;
    if (auto it = links.find(path); it != links.end()) view.pinned_sha = it->second;
    if (auto it = entries.find(path); it != entries.end()) view.entry = it->second;
    report.libraries.push_back(JudgeSubmodule(source, view, files, forks, matched));
  }
  if (options.readiness)
    for (size_t i = 0; i < forks.size(); ++i)
      if (!matched[i]) report.libraries.push_back(JudgeReadiness(forks[i], files, forks));
  const int64_t end = base::SystemClock().MonotonicUs();
  report.read_us = end - start;
  report.judge_us = end - parse_done;
  base::Log(base::LogArea::kIntegration)
      ->debug(
          "integrator read name={} head={} entries={} submodules={} libraries={} us={} tree_us={} parse_us={} "
          "judge_us={} parse_cpu_us={}",
          report.name, report.head, tree.entries, tree.gitlinks.size(), report.libraries.size(), report.read_us,
          report.tree_us, report.parse_us, report.judge_us, report.parse_cpu_us);
  return report;
}

Status ForkPackageNames(const Rules& rules, RegisteredFork& fork) {
  if (fork.repo.empty()) return Status::Ok();
  FS_ASSIGN_OR_RETURN(auto repo,
                      git::PairRepo::Open(fork.repo, fork.repo, git::RefSpaces{fork.refs_prefix, fork.refs_prefix}));
  FS_ASSIGN_OR_RETURN(std::string head, repo->ForkBranchSha(fork.branch));
  FS_ASSIGN_OR_RETURN(auto blobs, repo->TreeBlobs(head));
  std::vector<std::string> paths;
  for (const auto& b : blobs) paths.push_back(b.first);
  fork.packages.clear();
  for (const auto& p : FindPythonPackages(paths, rules.data().eager_import)) fork.packages.push_back(p.name);
  return Status::Ok();
}

Status ForkPackageScope(const Rules& rules, RegisteredFork& fork, const std::vector<std::string>& extra_sensitive,
                        const PythonScanOptions& scan) {
  if (fork.repo.empty()) return Status::Ok();
  FS_ASSIGN_OR_RETURN(auto repo,
                      git::PairRepo::Open(fork.repo, fork.repo, git::RefSpaces{fork.refs_prefix, fork.refs_prefix}));
  FS_ASSIGN_OR_RETURN(std::string head, repo->ForkBranchSha(fork.branch));
  const RulesData& data = rules.data();
  FS_ASSIGN_OR_RETURN(auto python, ReadPackageFiles(*repo, head, data.eager_import, nullptr));
  FS_ASSIGN_OR_RETURN(EagerImportReport lint, LintPythonPackages(data, python, extra_sensitive, scan));
  fork.packages.clear();
  for (const auto& p : lint.packages) fork.packages.push_back(p.name);
  fork.needed_scope = lint.needed_scope;
  return Status::Ok();
}

}  // namespace forkscope::analyzer::integration
