// RenderMarkdown (see report.h): the report a maintainer pastes into a pull request, so URLs lose their
// credentials and every table cell is escaped. The summary, the violations and the validation path the
// migration guide asks for (guessed from the files the fork changed) come first; the file tables last,
// folded in <details>. Pure functions over values; thread-safe.
#include <algorithm>
#include <optional>
#include <sstream>
#include <string_view>
#include <utility>
#include <vector>

#include "analyzer/model/python_package.h"
#include "analyzer/render/report.h"
#include "analyzer/render/report_internal.h"

namespace forkscope::analyzer {

using report_internal::ComputeTotals;
using report_internal::FormatUtc;
using report_internal::IsRenameOrCopy;
using report_internal::ShortSha;
using report_internal::SummaryOf;
using report_internal::Totals;

namespace {

const char* LayerMeaning(Layer layer) {
  switch (layer) {
    case Layer::kKernel:
      return "framework-independent kernels and algorithms";
    case Layer::kBuild:
      return "build and packaging";
    case Layer::kCppCompat:
      return "C++ compat API and operator registration";
    case Layer::kPython:
      return "Python wrappers, runtime glue and tests";
    case Layer::kOther:
      return "docs, licences, assets, editor config";
  }
  return "";
}

std::string LayerTitle(Layer layer) { return std::string(LayerName(layer)) + " — " + LayerMeaning(layer); }

// Drops "user:token@" from a URL: reports get pasted into public pull requests.
std::string StripCredentials(const std::string& url) {
  const size_t scheme = url.find("://");
  if (scheme == std::string::npos) return url;
  const size_t host = scheme + 3;
  const size_t at = url.find('@', host);
  const size_t slash = url.find('/', host);
  if (at == std::string::npos || (slash != std::string::npos && at > slash)) return url;
  return url.substr(0, host) + url.substr(at + 1);
}

// "https://github.com/PFCCLab/flashinfer.git" -> "PFCCLab/flashinfer"; other hosts keep the host; a
// local repository ("/srv/forks/fastops-paddle.git", file://…) is named by its directory, not by
// where it sits on this machine.
std::string RepoName(const std::string& url) {
  std::string name = StripCredentials(url);
  bool local = name.rfind("file://", 0) == 0;
  const size_t scheme = name.find("://");
  if (scheme != std::string::npos) {
    name = name.substr(scheme + 3);
  } else if (const size_t at = name.find('@'), colon = name.find(':');
             colon != std::string::npos && at < colon && name.find('/') > colon) {
    name[colon] = '/';  // scp-like git@host:owner/repo
    name = name.substr(at + 1);
  } else {
    local = true;
  }
  if (name.rfind("github.com/", 0) == 0) name = name.substr(11);
  while (!name.empty() && name.back() == '/') name.pop_back();
  if (name.size() > 4 && name.compare(name.size() - 4, 4, ".git") == 0) name.resize(name.size() - 4);
  while (local && !name.empty() && name.back() == '/') name.pop_back();
  if (local && name.rfind('/') != std::string::npos) name = name.substr(name.rfind('/') + 1);
  return name.empty() ? url : name;
}

// One table cell: '|' escaped, line breaks folded.
std::string Cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n' || c == '\r')
      out += ' ';
    else
      out += c;
  }
  return out;
}

std::string Code(std::string_view text) {
  if (text.empty()) return "—";
  const bool has_tick = text.find('`') != std::string_view::npos;
  return has_tick ? "`` " + std::string(text) + " ``" : "`" + std::string(text) + "`";
}

std::string OrDash(const std::string& s) { return s.empty() ? "—" : s; }

std::string Plural(int n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); }

std::string FileName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool IsTestFile(const FileChange& f) {
  if (f.status == FileStatus::kDeleted || !EndsWith(f.path, ".py")) return false;
  const std::string name = FileName(f.path);
  return name.rfind("test_", 0) == 0 || EndsWith(name, "_test.py");
}

std::vector<std::string> ChangedTests(const Analysis& a) {
  std::vector<std::string> tests;
  for (const FileChange& f : a.files)
    if (IsTestFile(f)) tests.push_back(f.path);
  return tests;
}

bool IsIdentifier(const std::string& s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// The package to import: the one the analysis detected in the fork's tree (analyzer/model/python_package.h,
// as the planner does); for analyses stored before that, the top-level directory most changed .py files
// live in ("python/" and "src/" layouts too) that is not tests or tooling.
std::optional<std::string> GuessPackage(const Analysis& a) {
  if (!a.packages.empty()) return a.packages.front();
  std::vector<std::pair<std::string, int>> counts;  // in order of first appearance
  for (const FileChange& f : a.files) {
    if (f.status == FileStatus::kDeleted || !EndsWith(f.path, ".py") || IsTestFile(f)) continue;
    std::string_view path = f.path;
    if (path.rfind("python/", 0) == 0 || path.rfind("src/", 0) == 0) path.remove_prefix(path.find('/') + 1);
    const size_t slash = path.find('/');
    if (slash == std::string_view::npos) continue;  // a top-level script, not a package
    const std::string top(path.substr(0, slash));
    if (!IsIdentifier(top) || IsNonPackageDirectory(top)) continue;
    auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == top; });
    if (it == counts.end())
      counts.emplace_back(top, 1);
    else
      ++it->second;
  }
  if (counts.empty()) return std::nullopt;
  return std::max_element(counts.begin(), counts.end(),
                          [](const auto& x, const auto& y) { return x.second < y.second; })
      ->first;
}

// The build command of the validation path, from the build files the fork changed.
std::string BuildStep(const Analysis& a) {
  std::string nested_setup;
  bool setup_ops = false, pyproject = false, cmake = false;
  for (const FileChange& f : a.files) {
    if (f.status == FileStatus::kDeleted) continue;
    if (f.path == "setup.py")
      return std::string(
                 "`pip install -e . --no-build-isolation` (or `python setup.py build_ext --inplace`); "
                 "`setup.py` changed, and a build that ") +
             (a.style == MigrationStyle::kCompat ? "calls `paddle.enable_compat()`" : "imports `paddle`") +
             " needs Paddle in the build environment, hence no build isolation";
    if (FileName(f.path) == "setup_ops.py") setup_ops = true;
    if (f.path == "pyproject.toml") pyproject = true;
    if (f.path == "CMakeLists.txt") cmake = true;
    if (nested_setup.empty() && EndsWith(f.path, "/setup.py")) nested_setup = f.path;
  }
  if (setup_ops) return "`python setup_ops.py install` (Paddle custom-op build script)";
  if (pyproject) return "`pip install -e . --no-build-isolation` (`pyproject.toml` changed)";
  if (!nested_setup.empty())
    return "`cd " + nested_setup.substr(0, nested_setup.size() - 9) + " && pip install -e . --no-build-isolation` (`" +
           nested_setup + "` changed)";
  if (cmake) return "`cmake -S . -B build && cmake --build build` (`CMakeLists.txt` changed)";
  return "build the package the way upstream documents it, in an environment with Paddle installed "
         "(for a Python package: `pip install -e . --no-build-isolation`)";
}

std::string ImportStep(const Analysis& a) {
  const std::optional<std::string> package = GuessPackage(a);
  const std::string name = package.value_or("<package>");
  std::string step;
  if (a.style == MigrationStyle::kCompat)
    step = "`python -c \"import paddle; paddle.enable_compat(scope={'" + name + "'}); import " + name +
           "\"` (the torch proxy limited to the package, as at run time)";
  else
    step = "`python -c \"import " + name + "\"`";
  if (!package) step += " — replace `<package>` with the library's import name";
  return step;
}

std::string TestCommand(const std::vector<std::string>& tests) {
  std::string cmd = "pytest";
  for (size_t i = 0; i < tests.size() && i < 3; ++i) cmd += " " + tests[i];
  return cmd + " -x";
}

void RenderValidation(const Analysis& a, std::ostringstream& md) {
  const std::vector<std::string> tests = ChangedTests(a);
  md << "## Validation path\n\n"
     << "The guide's shortest path; at least one minimal build and test must pass.\n\n"
     << "- [ ] **1. Build**: " << BuildStep(a) << "\n"
     << "- [ ] **2. Import**: " << ImportStep(a) << "\n";
  md << "- [ ] **3. Minimal functional test**: ";
  if (tests.empty()) {
    md << "no test file changed; run the smallest upstream test that exercises a changed op "
          "(e.g. `pytest tests -x -k <op>`)\n";
  } else {
    md << "`" << TestCommand(tests) << "`";
    if (tests.size() > 3) md << " (" << tests.size() - 3 << " more changed test files)";
    md << "\n";
  }
  const std::string base = a.merge_base.empty() ? a.upstream.sha : a.merge_base;
  md << "- [ ] **4. Runtime comparison against upstream**: run "
     << (tests.empty() ? std::string("the same test") : "`" + TestCommand(tests) + "`")
     << " under upstream torch (upstream at " << Code(ShortSha(base))
     << ") and under this fork with Paddle; compare outputs call by call and report the first "
        "diverging call (file:line, call site, layer)\n\n";
}

std::string BaseDescription(const Analysis& a) {
  std::string s = OrDash(BaseSourceName(a.base_source));
  if (a.base_source == BaseSource::kMergeBase) s += " (common history)";
  if (a.base_source == BaseSource::kSearched) s += " (closest upstream tree; no shared history)";
  if (a.base_distance)
    s += "; distance " + Plural(a.base_distance->files, "file", "files") + ", " +
         Plural(a.base_distance->lines, "line", "lines") + ", " +
         Plural(a.base_distance->commits_scanned, "commit scanned", "commits scanned");
  if (a.base_source == BaseSource::kSearched && a.base_distance) {
    const BaseDistance& d = *a.base_distance;
    s += "; keeps " + std::to_string(d.kept_lines) + " of the fork's " + Plural(d.fork_lines, "line", "lines");
    if (d.equivalent_commits > 0) s += " (as do " + Plural(d.equivalent_commits, "other commit", "other commits") + ")";
    if (!d.runner_up.empty())
      s +=
          "; runner-up " + Code(ShortSha(d.runner_up)) + " keeps " + Plural(d.margin_lines, "line", "lines") + " fewer";
    if (!d.confidence.empty())
      s += "; confidence **" + d.confidence + "**" + (d.confidence_reason.empty() ? "" : ": " + d.confidence_reason);
  }
  return s;
}

std::string StyleDescription(MigrationStyle style) {
  switch (style) {
    case MigrationStyle::kCompat:
      return "compat (Paddle's torch compatibility layer)";
    case MigrationStyle::kNative:
      return "native (ported to Paddle's own custom-op API)";
    case MigrationStyle::kMixed:
      return "mixed (compat layer and Paddle's own API, both with substantial weight)";
    case MigrationStyle::kNone:
      return "none (no Paddle migration found)";
  }
  return "none";
}

std::string RefCell(const RefInfo& ref, const std::string& choice) {
  std::string s = StripCredentials(ref.url) + " — branch " + Code(ref.branch);
  if (choice == "given") s += " (given)";
  if (choice == "default") s += " (upstream default branch)";
  if (choice == "auto") s += " (chosen automatically)";
  return s + " at " + Code(ShortSha(ref.sha));
}

void RenderHeader(const Analysis& a, const std::string& fork_name, std::ostringstream& md) {
  md << "# Paddle migration: " << (fork_name.empty() ? RepoName(a.fork.url) : fork_name) << "@" << a.fork.branch
     << " → " << RepoName(a.upstream.url) << "@" << a.upstream.branch << "\n\n"
     << "| | |\n|---|---|\n"
     << "| Fork | " << Cell(RefCell(a.fork, "")) << " |\n"
     << "| Upstream | " << Cell(RefCell(a.upstream, a.upstream_branch_choice)) << " |\n"
     << "| Merge-base | " << Cell(Code(ShortSha(a.merge_base))) << " |\n"
     << "| Base source | " << Cell(BaseDescription(a)) << " |\n"
     << "| Ahead / behind | " << a.ahead << " ahead, " << a.behind << " behind |\n"
     << "| Migration style | " << StyleDescription(a.style) << " |\n"
     << "| Rules version | " << Cell(Code(a.rules_version)) << " |\n"
     << "| Cached | " << (a.cached ? "yes" : "no") << " |\n"
     << "| Analysed | " << FormatUtc(a.created_at) << " in " << a.duration_ms << " ms |\n";
  if (!a.migration_branches.empty()) {
    std::string branches;
    for (const std::string& b : a.migration_branches) branches += (branches.empty() ? "" : ", ") + Code(b);
    md << "| Migration branches | " << Cell(branches) << " |\n";
  }
  md << "\n";
}

std::string FilePathCell(const FileChange& f) {
  std::string s =
      IsRenameOrCopy(f.status) && !f.old_path.empty() ? Code(f.old_path) + " → " + Code(f.path) : Code(f.path);
  if (!f.moved_from.empty()) s += " (moved from " + Code(f.moved_from) + ")";
  if (!f.copied_from.empty()) s += " (copied from " + Code(f.copied_from) + ")";
  if (f.truncated) s += " (diff truncated)";
  return Cell(s);
}

std::string FileStatusCell(const FileChange& f) {
  std::string s = FileStatusName(f.status);
  if (IsRenameOrCopy(f.status)) s += " (" + std::to_string(f.similarity) + "%)";
  return s;
}

std::string FilePatternsCell(const FileChange& f) {
  std::vector<std::string> ids;
  for (const Hunk& h : f.hunks)
    for (const std::string& p : h.patterns)
      if (std::find(ids.begin(), ids.end(), p) == ids.end()) ids.push_back(p);
  std::string s;
  for (const std::string& id : ids) s += (s.empty() ? "" : ", ") + Code(id);
  return s.empty() ? "—" : Cell(s);
}

// Long: every changed file, so it sits folded in <details> (GitHub renders the Markdown inside once a
// blank line follows <summary>).
void RenderFilesByLayer(const Analysis& a, std::ostringstream& md) {
  md << "## Changed files by layer\n\n"
     << Plural(static_cast<int>(a.files.size()), "file", "files") << " changed; everything else matches upstream at "
     << Code(ShortSha(a.merge_base.empty() ? a.upstream.sha : a.merge_base)) << ".\n\n";
  if (a.files.empty()) return;
  md << "<details>\n<summary>Every changed file, by layer</summary>\n\n";
  for (Layer layer : kAllLayers) {
    md << "### " << LayerTitle(layer) << "\n\n";
    std::vector<const FileChange*> files;
    for (const FileChange& f : a.files)
      if (f.layer == layer) files.push_back(&f);
    if (files.empty()) {
      md << "No changes.\n\n";
      continue;
    }
    if (layer == Layer::kKernel) {
      md << "Kernel changes are rarely needed by a migration; each deserves a stated reason.\n\n";
    }
    md << "| Path | Status | +/− | Patterns |\n|---|---|---|---|\n";
    for (const FileChange* f : files)
      md << "| " << FilePathCell(*f) << " | " << FileStatusCell(*f) << " | "
         << (f->binary ? std::string("binary")
                       : "+" + std::to_string(f->additions) + " / −" + std::to_string(f->deletions))
         << " | " << FilePatternsCell(*f) << " |\n";
    md << "\n";
  }
  md << "</details>\n\n";
}

// What a reviewer reads first: how big the change is, how many findings and gaps, then the layers.
void RenderSummary(const Analysis& a, std::ostringstream& md) {
  const Totals totals = ComputeTotals(a);
  int by_severity[3] = {0, 0, 0};
  for (const Violation& v : a.violations) ++by_severity[static_cast<int>(v.severity)];
  const auto no_removal =
      std::count_if(a.compat_gaps.begin(), a.compat_gaps.end(), [](const CompatGap& g) { return g.removal.empty(); });
  md << "## Summary\n\n"
     << Plural(totals.files, "file", "files") << " changed (+" << totals.additions << " / −" << totals.deletions
     << "); "
     << Plural(static_cast<int>(a.violations.size()), "minimal-modification violation",
               "minimal-modification violations")
     << " (" << Plural(by_severity[0], "error", "errors") << ", " << Plural(by_severity[1], "warning", "warnings")
     << ", " << Plural(by_severity[2], "note", "notes") << "); "
     << Plural(static_cast<int>(a.compat_gaps.size()), "compat-gap workaround", "compat-gap workarounds");
  if (no_removal > 0) md << " (" << no_removal << " without a removal condition)";
  md << ".\n\n| Layer | Files | Hunks | + | − |\n|---|---:|---:|---:|---:|\n";
  for (Layer layer : kAllLayers) {
    const LayerSummary& s = SummaryOf(a, layer);
    md << "| " << LayerTitle(layer) << " | " << s.files << " | " << s.hunks << " | " << s.additions << " | "
       << s.deletions << " |\n";
  }
  const Totals& t = totals;
  md << "| **total** | " << t.files << " | " << t.hunks << " | " << t.additions << " | " << t.deletions << " |\n\n";
}

void RenderPatterns(const Analysis& a, std::ostringstream& md) {
  md << "## Patterns\n\n";
  if (a.patterns.empty())
    md << "None.\n\n";
  else
    md << "| Pattern | Layer | Count | Description |\n|---|---|---:|---|\n";
  for (const PatternCount& p : a.patterns)
    md << "| " << Cell(Code(p.id)) << " | " << LayerName(p.layer) << " | " << p.count << " | " << Cell(p.description)
       << " |\n";
  if (!a.patterns.empty()) md << "\n";
}

void RenderViolations(const Analysis& a, std::ostringstream& md) {
  md << "## Minimal-modification violations\n\n";
  if (a.violations.empty())
    md << "None.\n\n";
  else
    md << "| Rule | Where | Message | Severity |\n|---|---|---|---|\n";
  for (const Violation& v : a.violations)
    md << "| " << Cell(Code(v.rule)) << " | " << Cell(Code(v.line > 0 ? v.path + ":" + std::to_string(v.line) : v.path))
       << " | " << Cell(v.message) << " | " << SeverityName(v.severity) << " |\n";
  if (!a.violations.empty()) md << "\n";
}

void RenderCompatGaps(const Analysis& a, std::ostringstream& md) {
  md << "## Compat-gap workarounds\n\n";
  if (a.compat_gaps.empty()) {
    md << "None.\n\n";
    return;
  }
  const auto missing =
      std::count_if(a.compat_gaps.begin(), a.compat_gaps.end(), [](const CompatGap& g) { return g.removal.empty(); });
  md << "Every workaround should state what it covers, when it can be deleted, and whether a Paddle issue "
        "is needed";
  if (missing > 0) md << "; " << missing << " of " << a.compat_gaps.size() << " lack a removal condition";
  md << ".\n\n| API | Bridge | Where | Scope | Removal condition | Issue |\n|---|---|---|---|---|---|\n";
  for (const CompatGap& g : a.compat_gaps) {
    const std::string where = g.line > 0 ? g.path + ":" + std::to_string(g.line) : g.path;
    md << "| " << Cell(Code(g.api)) << " | " << Cell(Code(g.bridge)) << " | " << Cell(Code(where)) << " | "
       << Cell(OrDash(g.scope)) << " | " << (g.removal.empty() ? "**missing**" : Cell(g.removal)) << " | "
       << Cell(OrDash(g.issue)) << " |\n";
  }
  md << "\n";
}

void RenderStyleEvidence(const Analysis& a, std::ostringstream& md) {
  const StyleEvidence& e = a.style_evidence;
  md << "## Migration style evidence\n\n";
  if (e.compat_hunks + e.native_hunks == 0) {
    md << (a.style == MigrationStyle::kNone ? "No Paddle migration found in the changed code.\n\n"
                                            : "Paddle is used, but no change names a style; counted as compat.\n\n");
    return;
  }
  md << "Compat: " << Plural(e.compat_hunks, "hunk", "hunks") << ", " << Plural(e.compat_lines, "line", "lines")
     << "; native: " << Plural(e.native_hunks, "hunk", "hunks") << ", " << Plural(e.native_lines, "line", "lines")
     << (e.harness_only ? " (tests, examples and benchmarks only: the library's own code names no style)" : "")
     << ".\n\n| Style | Signal | Where | Weight |\n|---|---|---|---:|\n";
  for (const StyleSignal& s : e.strongest) {
    const std::string where = s.line > 0 ? s.path + ":" + std::to_string(s.line) : s.path;
    md << "| " << MigrationStyleName(s.style) << " | " << Cell(Code(s.signal)) << " | " << Cell(Code(where)) << " | "
       << s.weight << " |\n";
  }
  md << "\n";
}

void RenderMoves(const Analysis& a, std::ostringstream& md) {
  if (!a.moves.empty()) {
    md << "## Directory moves and copies\n\n| Kind | From | To | Files | Verbatim | Adapted |\n"
       << "|---|---|---|---:|---:|---:|\n";
    for (const TreeMove& m : a.moves)
      md << "| " << Cell(m.kind) << " | " << Cell(Code(m.from)) << " | " << Cell(Code(m.to)) << " | " << m.files
         << " | " << m.verbatim << " | " << m.adapted << " |\n";
    md << "\n";
  }
}

// Only when there are any: a fallback branch or a capped scan changes how the report reads.
void RenderNotices(const Analysis& a, std::ostringstream& md) {
  if (a.notices.empty()) return;
  md << "## Notices\n\n";
  for (const std::string& n : a.notices) md << "- " << n << "\n";
  md << "\n";
}

}  // namespace

std::string RenderMarkdown(const Analysis& analysis, const std::string& fork_name) {
  std::ostringstream md;
  // What to act on first; the long per-file tables last, folded.
  RenderHeader(analysis, fork_name, md);
  RenderSummary(analysis, md);
  RenderNotices(analysis, md);
  RenderViolations(analysis, md);
  RenderValidation(analysis, md);
  RenderCompatGaps(analysis, md);
  RenderPatterns(analysis, md);
  RenderStyleEvidence(analysis, md);
  RenderMoves(analysis, md);
  RenderFilesByLayer(analysis, md);
  return md.str();
}

}  // namespace forkscope::analyzer
