// The eager-import lint over a commit's tree: which files are read, and the analysis hook.

#include "analyzer/integration/eager_import.h"
#include "base/log.h"

namespace forkscope::analyzer::integration {
namespace {

bool HasEagerRule(const RulesData& rules) {
  for (const auto& r : rules.violations)
    if (r.check == ViolationCheck::kEagerImportMissing || r.check == ViolationCheck::kFunctionLevelTorchImport ||
        r.check == ViolationCheck::kLazyLoader)
      return true;
  return false;
}

}  // namespace

Result<std::vector<PythonFile>> ReadPackageFiles(const git::PairRepo& repo, const std::string& commit,
                                                 const EagerImportRules& rules, std::vector<std::string>* notices) {
  // Packages first, by a filtered walk that copies only the __init__.py entries out: most trees of
  // C++/CUDA libraries have none, and their analysis pays nothing more.
  FS_ASSIGN_OR_RETURN(auto inits, repo.TreeBlobsMatching(commit, {"__init__.py"}, {}));
  std::vector<std::string> paths;
  for (const auto& b : inits) paths.push_back(b.first);
  const std::vector<PythonPackage> packages = FindPythonPackages(paths, rules);
  if (packages.empty()) return std::vector<PythonFile>{};
  FS_ASSIGN_OR_RETURN(auto blobs, repo.TreeBlobs(commit));
  std::vector<PythonFile> files;
  size_t bytes = 0, skipped = 0;
  for (const auto& [path, oid] : blobs) {
    if (path.size() < 3 || path.compare(path.size() - 3, 3, ".py") != 0) continue;
    bool inside = false;
    for (const auto& p : packages) inside = inside || path.compare(0, p.dir.size(), p.dir) == 0;
    if (!inside) continue;
    if (files.size() >= rules.max_files || bytes >= rules.max_bytes) {
      ++skipped;
      continue;
    }
    files.push_back({path, repo.BlobText(oid, rules.max_bytes)});
    bytes += files.back().text.size();
  }
  if (skipped > 0 && notices != nullptr)
    notices->push_back("eager-import lint read " + std::to_string(files.size()) + " Python files (" +
                       std::to_string(bytes >> 20) + " MiB); " + std::to_string(skipped) + " more were not read");
  return files;
}

Status AddEagerImportFindings(const Rules& rules, const git::PairRepo& repo, Analysis& analysis) {
  if (analysis.style != MigrationStyle::kCompat && analysis.style != MigrationStyle::kMixed) return Status::Ok();
  const RulesData& data = rules.data();
  if (!HasEagerRule(data)) return Status::Ok();
  FS_ASSIGN_OR_RETURN(std::vector<PythonFile> files,
                      ReadPackageFiles(repo, analysis.fork.sha, data.eager_import, &analysis.notices));
  if (files.empty()) return Status::Ok();
  FS_ASSIGN_OR_RETURN(EagerImportReport report, LintPythonPackages(data, files));
  for (auto& n : report.notices) analysis.notices.push_back(std::move(n));
  if (!report.needed_scope.empty()) {
    std::string scope;
    for (const auto& s : report.needed_scope) scope += (scope.empty() ? "\"" : ", \"") + s + "\"";
    analysis.notices.push_back(std::string(kNeededScopeNotice) +
                               "(the packages that import torch while the package loads): "
                               "paddle.use_compat_guard(scope={" +
                               scope + "})");
  }
  for (auto& v : report.violations) analysis.violations.push_back(std::move(v));
  base::Log(base::LogArea::kIntegration)
      ->debug("eager_import fork={} sha={} packages={} modules={} loaded={} findings={}", analysis.fork.url,
              analysis.fork.sha, report.packages.size(), report.modules, report.loaded_modules,
              report.violations.size());
  return Status::Ok();
}

}  // namespace forkscope::analyzer::integration
