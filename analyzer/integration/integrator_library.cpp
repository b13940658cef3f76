// One library of an integrator: which registered fork its submodule URL names (a fork pinned twice is
// told apart by the .gitmodules branch, else by the branch holding the pin), where the pin stands on
// the fork, which integration steps are present and what to paste for the others.
#include <algorithm>
#include <cctype>

#include "analyzer/git/pin_reach.h"
#include "analyzer/integration/integrator_internal.h"
#include "analyzer/integration/repo_url.h"
#include "base/url.h"

namespace forkscope::analyzer::integration {
namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string Basename(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string Dirname(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

// "a/./b/../c" -> "a/c".
std::string Normalize(const std::string& path) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string::npos) slash = path.size();
    std::string part = path.substr(start, slash - start);
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    start = slash + 1;
  }
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "/") + p;
  return out;
}

bool Within(const std::string& path, const std::string& dir) {
  return path == dir || path.compare(0, dir.size() + 1, dir + "/") == 0;
}

// "sonic-moe" -> "sonic_moe": how a directory name reads as an import name.
std::string AsModule(const std::string& name) {
  std::string out = Lower(name);
  std::replace(out.begin(), out.end(), '-', '_');
  return out;
}

const EcosystemLib* FindLib(const IntegratorFiles& files, const std::string& path) {
  const std::string base = files.layout.BuildUtilsDir();
  for (const auto& lib : files.libraries) {
    if (lib.source_rel_path.empty()) continue;
    const std::string from_pkg = Normalize(base.empty() ? lib.source_rel_path : base + "/" + lib.source_rel_path);
    if (Within(from_pkg, path) || Within(Normalize(lib.source_rel_path), path)) return &lib;
  }
  for (const auto& lib : files.libraries)
    if (Lower(lib.name) == Lower(Basename(path))) return &lib;
  return nullptr;
}

// The import names a library is loaded by: its artifacts (extension modules and suffixed names
// dropped), else its packages, else its directory name.
std::vector<std::string> ModulesOf(const EcosystemLib* lib, const RegisteredFork* fork, const std::string& dir) {
  std::vector<std::string> out;
  if (lib != nullptr)
    for (const auto& [source, target] : lib->artifacts)
      if (target.find('.') == std::string::npos) out.push_back(target);
  if (out.empty() && fork != nullptr) out = fork->packages;
  if (out.empty()) out.push_back(AsModule(dir));
  return out;
}

// The block loading one of modules: its own _safe_load_ecosystem_lib call, else one that loads it
// as an extra library under its guard (sonicmoe's block loads quack).
const LoaderBlock* FindLoad(const IntegratorFiles& files, const std::vector<std::string>& modules,
                            std::string& module) {
  for (const auto& m : modules)
    for (const auto& l : files.loads)
      if (l.module == m) return module = m, &l;
  for (const auto& m : modules)
    for (const auto& l : files.loads)
      if (std::find(l.extra_libs.begin(), l.extra_libs.end(), m) != l.extra_libs.end()) return module = m, &l;
  return nullptr;
}

// The fork's needed scope as the integrator imports it: a package the build installs under another
// name (Artifact("deep_ep", "hybrid_ep")) is named by that target.
std::vector<std::string> InstalledScope(const std::vector<std::string>& scope, const EcosystemLib* lib) {
  std::vector<std::string> out;
  for (const auto& s : scope) {
    std::string name = s;
    if (lib != nullptr)
      for (const auto& [source, target] : lib->artifacts)
        if (source == s && target.find('.') == std::string::npos) name = target;
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return out;
}

bool ImportTested(const IntegratorFiles& files, const std::string& module) {
  for (const auto& imported : files.test_imports) {
    size_t start = 0;
    while (start <= imported.size()) {
      size_t dot = imported.find('.', start);
      if (dot == std::string::npos) dot = imported.size();
      if (imported.compare(start, dot - start, module) == 0 && dot - start == module.size() && start > 0) return true;
      start = dot + 1;
    }
  }
  return false;
}

// The fork a submodule URL names; several share the URL when a fork is pinned twice.
const RegisteredFork* MatchFork(const SubmoduleView& view, const std::string& url,
                                const std::vector<RegisteredFork>& forks, size_t& index) {
  const std::string key = RepoUrlKey(url);
  std::vector<size_t> candidates;
  for (size_t i = 0; i < forks.size(); ++i)
    if (!key.empty() && RepoUrlKey(forks[i].url) == key) candidates.push_back(i);
  if (candidates.empty()) return nullptr;
  auto pick = [&](size_t i) {
    index = i;
    return &forks[i];
  };
  if (candidates.size() == 1) return pick(candidates[0]);
  const std::string branch = view.entry != nullptr ? view.entry->branch : "";
  if (!branch.empty() && branch != ".")
    for (size_t i : candidates)
      if (forks[i].branch == branch) return pick(i);
  if (!view.pinned_sha.empty())
    for (size_t i : candidates) {
      const auto& f = forks[i];
      if (f.repo.empty()) continue;
      auto reach = git::ReachOfPin(f.repo, f.refs_prefix, f.branch, view.pinned_sha);
      if (reach.ok() && reach->on_branch) return pick(i);
    }
  for (size_t i : candidates)
    if (Lower(forks[i].name) == Lower(Basename(view.path))) return pick(i);
  return pick(candidates[0]);
}

void JudgePin(const RegisteredFork& fork, LibraryReport& lib) {
  lib.fork = fork.name;
  lib.branch = fork.branch;
  if (fork.repo.empty()) {
    lib.state = PinState::kUnreachable;
    lib.notes = fork.fetch_error.empty() ? "the fork could not be fetched" : fork.fetch_error;
    return;
  }
  if (lib.pinned_sha.empty()) {
    lib.state = PinState::kOrphaned;
    lib.notes = "no gitlink at " + lib.path + ": the submodule pins nothing";
    return;
  }
  auto reach = git::ReachOfPin(fork.repo, fork.refs_prefix, fork.branch, lib.pinned_sha, fork.upstream_ref);
  if (!reach.ok()) {
    lib.state = PinState::kUnreachable;
    lib.notes = reach.status().message();
    return;
  }
  lib.upstream_behind = reach->upstream_behind;
  if (reach->on_branch) {
    lib.behind = reach->behind;
    lib.state = reach->behind == 0 ? PinState::kCurrent : PinState::kBehind;
  } else if (!reach->other_ref.empty()) {
    lib.state = PinState::kOffBranch;
    lib.other_ref = reach->other_ref;
    lib.notes = "the pin is on " + reach->other_ref + ", not on " + fork.branch;
  } else {
    lib.state = PinState::kOrphaned;
    lib.notes = reach->present ? "the pin is on no branch or tag of the fork (force-pushed away)"
                               : "the fork has no such commit (force-pushed away, or never pushed)";
  }
}

bool PinnedTwice(const std::string& url, const std::vector<RegisteredFork>& forks) {
  const std::string key = RepoUrlKey(url);
  return std::count_if(forks.begin(), forks.end(), [&](const RegisteredFork& f) { return RepoUrlKey(f.url) == key; }) >
         1;
}

// Steps, loader, scope and the text to paste for what is missing.
void JudgeSteps(const IntegratorFiles& files, const RegisteredFork* fork, const std::vector<RegisteredFork>& forks,
                LibraryReport& lib) {
  const EcosystemLib* entry = FindLib(files, lib.path);
  const std::vector<std::string> modules = ModulesOf(entry, fork, lib.name);
  lib.steps.get_libs = entry != nullptr;
  lib.steps.submodule_check = files.submodule_check_strings.count(lib.name) > 0;
  if (entry != nullptr)
    for (const auto& a : entry->artifacts) lib.artifacts.push_back(a.second);
  std::string module = modules.front();
  const LoaderBlock* load = FindLoad(files, modules, module);
  if (load != nullptr) lib.loader = *load;
  lib.steps.loader = load != nullptr;
  lib.steps.import_test = ImportTested(files, module);
  std::vector<std::string> unignored;
  for (const auto& t : lib.artifacts) {
    bool ignored = false;
    for (const auto& [path, patterns] : files.gitignores)
      ignored = ignored || ArtifactIgnored(patterns, Dirname(path), files.layout.OpsDir(), t);
    if (!ignored) unignored.push_back(t);
  }
  lib.steps.gitignore = !lib.artifacts.empty() && unignored.empty();
  if (fork != nullptr) lib.needed_scope = InstalledScope(fork->needed_scope, entry);
  if (load != nullptr)
    for (const auto& s : lib.needed_scope)
      if (std::find(load->scope.begin(), load->scope.end(), s) == load->scope.end()) lib.scope_lacks.push_back(s);
  for (const auto& c : files.multi_card_cases) {
    const std::string lower = Lower(c);
    if (lower.find(module) != std::string::npos || lower.find(AsModule(lib.name)) != std::string::npos)
      lib.multi_card_tests.push_back(c);
  }

  PasteContext paste;
  paste.layout = files.layout;
  paste.lib = lib.name;
  paste.path = lib.path;
  paste.url = base::SplitCredentials(fork != nullptr ? fork->url : lib.url).url;
  paste.branch = fork != nullptr ? fork->branch : lib.branch;
  paste.branch_line = fork != nullptr && PinnedTwice(fork->url, forks);
  paste.module = module;
  paste.artifacts = lib.artifacts;
  paste.needed_scope = lib.needed_scope;
  if (!lib.steps.submodule) lib.missing.push_back(PasteGitmodules(paste));
  if (!lib.steps.get_libs) lib.missing.push_back(PasteEcosystemLibrary(paste));
  if (!lib.steps.submodule_check) lib.missing.push_back(PasteSubmoduleCheck(paste));
  if (!lib.steps.gitignore)
    lib.missing.push_back(PasteGitignore(paste, lib.artifacts.empty() ? std::vector<std::string>{module} : unignored));
  if (!lib.steps.loader || lib.loader.guard != "use_compat_guard")
    lib.missing.push_back(PasteLoader(paste));
  else if (!lib.scope_lacks.empty()) {
    // The block as it should read: its own module, its scope and what it lacks.
    PasteContext fix = paste;
    fix.module = load->module;
    fix.needed_scope = load->scope;
    fix.needed_scope.insert(fix.needed_scope.end(), lib.scope_lacks.begin(), lib.scope_lacks.end());
    lib.missing.push_back(PasteScopeFix(fix, lib.scope_lacks));
  }
  if (!lib.steps.import_test) lib.missing.push_back(PasteImportTest(paste));
}

}  // namespace

LibraryReport JudgeSubmodule(const IntegratorSource& source, const SubmoduleView& view, const IntegratorFiles& files,
                             const std::vector<RegisteredFork>& forks, std::vector<bool>& matched) {
  LibraryReport lib;
  lib.path = view.path;
  lib.name = Basename(view.path);
  lib.pinned_sha = view.pinned_sha;
  const std::string url = view.entry != nullptr ? ResolveSubmoduleUrl(source.url, view.entry->url) : "";
  lib.url = base::RedactUrl(url);
  lib.steps.submodule = view.entry != nullptr && !view.pinned_sha.empty();
  size_t index = 0;
  const RegisteredFork* fork = url.empty() ? nullptr : MatchFork(view, url, forks, index);
  if (fork != nullptr) {
    matched[index] = true;
    JudgePin(*fork, lib);
  } else {
    lib.state = PinState::kUnmatched;
    lib.branch = view.entry != nullptr ? view.entry->branch : "";
    lib.notes =
        view.entry == nullptr ? "the gitlink has no .gitmodules entry (no URL)" : "no registered fork has this URL";
  }
  JudgeSteps(files, fork, forks, lib);
  return lib;
}

LibraryReport JudgeReadiness(const RegisteredFork& fork, const IntegratorFiles& files,
                             const std::vector<RegisteredFork>& forks) {
  LibraryReport lib;
  lib.name = RepoName(fork.url);
  if (PinnedTwice(fork.url, forks)) lib.name = fork.name;
  lib.path = files.layout.third_party + "/" + lib.name;
  lib.url = base::RedactUrl(fork.url);
  lib.fork = fork.name;
  lib.branch = fork.branch;
  lib.state = PinState::kNotIntegrated;
  lib.notes = fork.repo.empty() ? (fork.fetch_error.empty() ? "the fork could not be fetched" : fork.fetch_error) : "";
  JudgeSteps(files, &fork, forks, lib);
  return lib;
}

}  // namespace forkscope::analyzer::integration
