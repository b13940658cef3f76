#include "server/jobs/kernel_units.h"

#include <re2/re2.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "analyzer/classify/classifier.h"
#include "analyzer/classify/rules_data.h"
#include "base/message_code.h"
#include "base/text.h"
#include "server/jobs/executors/subprocess.h"

namespace forkscope::server {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr uintmax_t kMaxUnitBytes = 4 << 20;  // larger sources are generated tables, not kernels to classify

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Submodule paths the tree's .gitmodules names (`path = csrc/cutlass`).
std::set<std::string> SubmodulePaths(const std::string& tree) {
  std::set<std::string> paths;
  static const RE2 kPath(R"(^\s*path\s*=\s*(\S.*?)\s*$)");
  for (std::string_view line : base::SplitLines(ReadText(fs::path(tree) / ".gitmodules"))) {
    std::string path;
    if (RE2::FullMatch(line, kPath, &path)) paths.insert(path);
  }
  return paths;
}

bool IsBuildFile(const fs::path& p) {
  static const std::set<std::string> kNames = {"setup.py", "CMakeLists.txt", "pyproject.toml", "setup.cfg",
                                               "Makefile", "meson.build",    "BUILD",          "BUILD.bazel",
                                               "build.sh", "build.py"};
  static const std::set<std::string> kExts = {".cmake", ".bzl", ".mk"};
  return kNames.count(p.filename().string()) > 0 || kExts.count(p.extension().string()) > 0;
}

struct TreeFiles {
  std::vector<std::string> sources;                         // every regular file, relative, outside submodules
  std::vector<std::pair<std::string, std::string>> builds;  // build file's directory ("" = root) -> its text
};

TreeFiles ListTree(const std::string& tree) {
  TreeFiles out;
  const std::set<std::string> submodules = SubmodulePaths(tree);
  std::error_code ec;
  fs::recursive_directory_iterator it(tree, fs::directory_options::skip_permission_denied, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const fs::directory_entry& e = *it;
    std::error_code entry_ec;  // an entry that cannot be read is skipped; it does not end the walk
    const std::string rel = e.path().lexically_relative(tree).generic_string();
    if (e.is_symlink(entry_ec)) continue;
    if (e.is_directory(entry_ec)) {
      if (e.path().filename() == ".git" || submodules.count(rel)) it.disable_recursion_pending();
      continue;
    }
    if (!e.is_regular_file(entry_ec)) continue;
    out.sources.push_back(rel);
    if (IsBuildFile(e.path())) {
      const std::string dir = fs::path(rel).parent_path().generic_string();
      out.builds.emplace_back(dir, ReadText(e.path()));
    }
  }
  std::sort(out.sources.begin(), out.sources.end());
  return out;
}

bool AnyGlobMatches(const std::vector<std::string>& globs, const std::string& path) {
  for (const auto& g : globs) {
    RE2 re(analyzer::GlobToRegex(g));
    if (re.ok() && RE2::FullMatch(path, re)) return true;
  }
  return false;
}

bool HasExtension(const std::string& path, const std::vector<std::string>& exts) {
  const std::string ext = fs::path(path).extension().string();
  return std::find(exts.begin(), exts.end(), ext) != exts.end();
}

// The layer the classifier gives the whole file, read as added lines.
analyzer::Layer FileLayer(const analyzer::Rules& rules, const std::string& rel, const std::string& text) {
  analyzer::FileChange f;
  f.path = rel;
  f.status = analyzer::FileStatus::kAdded;
  analyzer::Hunk h;
  h.new_start = 1;
  int n = 0;
  for (std::string_view line : base::SplitLines(text)) h.lines.push_back({'+', std::string(line), -1, ++n});
  h.new_lines = n;
  f.additions = n;
  if (n > 0) f.hunks.push_back(std::move(h));
  analyzer::ClassifyFile(rules, analyzer::FileSource{"", text}, f);
  return f.layer;
}

bool IsBoundary(char c) { return std::string_view("\"' \t\n()[],/=:;").find(c) != std::string_view::npos; }

// Whether text names `name` as a whole path or file name (bounded by quotes, spaces, brackets, slashes).
bool Names(std::string_view text, std::string_view name) {
  for (size_t at = text.find(name); at != std::string_view::npos; at = text.find(name, at + 1)) {
    const bool left = at == 0 || IsBoundary(text[at - 1]);
    const size_t after = at + name.size();
    const bool right = after == text.size() || IsBoundary(text[after]);
    if (left && right) return true;
  }
  return false;
}

// The quoted glob patterns of a build file's text ("csrc/*.cu", 'kernels/**/*.cu').
std::vector<std::string> QuotedGlobs(const std::string& text) {
  static const RE2 kQuoted(R"re(["']([^"'\n]*\*[^"'\n]*)["'])re");
  std::vector<std::string> globs;
  re2::StringPiece rest(text);
  std::string g;
  while (RE2::FindAndConsume(&rest, kQuoted, &g)) globs.push_back(g);
  return globs;
}

// Whether a build file in dir names the unit: its path from dir, from the root, its file name, or a
// quoted glob that matches it.
bool BuildLists(const std::string& dir, const std::string& text, const std::string& unit) {
  std::string from_dir = unit;
  if (!dir.empty()) {
    if (unit.rfind(dir + "/", 0) != 0) return false;
    from_dir = unit.substr(dir.size() + 1);
  }
  if (Names(text, from_dir) || Names(text, unit) || Names(text, fs::path(unit).filename().string())) return true;
  for (const auto& g : QuotedGlobs(text)) {
    const std::string pattern = g.rfind("./", 0) == 0 ? g.substr(2) : g;
    if (pattern.find('/') != std::string::npos && AnyGlobMatches({pattern}, from_dir)) return true;
  }
  return false;
}

std::string Joined(const std::vector<std::string>& items, size_t max) {
  std::string s;
  for (size_t i = 0; i < items.size() && i < max; ++i) s += (i ? ", " : "") + items[i];
  if (items.size() > max) s += ", ... (" + std::to_string(items.size() - max) + " more)";
  return s;
}

}  // namespace

KernelSelection SelectKernelUnits(const std::string& tree, const KernelUnitsSpec& spec, const analyzer::Rules& rules) {
  TreeFiles files = ListTree(tree);
  KernelSelection sel;
  if (!spec.units.empty()) {
    for (const auto& p : files.sources)
      if (AnyGlobMatches(spec.units, p) && !AnyGlobMatches(spec.exclude, p)) sel.units.push_back(p);
    sel.how = "recipe";
    sel.note = sel.units.empty() ? "the recipe's units (" + Joined(spec.units, 8) + ") match no file of the work tree"
                                 : "the recipe's units: " + Joined(sel.units, 12);
    return sel;
  }
  std::vector<std::string> kernel;
  size_t candidates = 0;
  for (const auto& p : files.sources) {
    if (!HasExtension(p, spec.extensions) || AnyGlobMatches(spec.exclude, p)) continue;
    std::error_code ec;
    if (fs::file_size(fs::path(tree) / p, ec) > kMaxUnitBytes) continue;
    ++candidates;
    if (FileLayer(rules, p, ReadText(fs::path(tree) / p)) == analyzer::Layer::kKernel) kernel.push_back(p);
  }
  for (const auto& unit : kernel)
    for (const auto& [dir, text] : files.builds)
      if (BuildLists(dir, text, unit)) {
        sel.units.push_back(unit);
        break;
      }
  const std::string counted = std::to_string(kernel.size()) + " of " + std::to_string(candidates) + " " +
                              Joined(spec.extensions, 8) + " files are kernel-layer";
  if (!sel.units.empty()) {
    sel.how = "build";
    sel.note =
        counted + ", " + std::to_string(sel.units.size()) + " of them named by the build: " + Joined(sel.units, 12);
  } else {
    sel.units = kernel;
    sel.how = "kernel_layer";
    sel.note = counted + (files.builds.empty() ? " (no build file)" : " and no build file names one") +
               (kernel.empty() ? "" : ": compiling them all: " + Joined(kernel, 12));
  }
  return sel;
}

std::string KernelScript(const StageSpec& spec, const KernelSelection& selection, const std::string& tree,
                         const std::string& out_dir) {
  const KernelUnitsSpec& k = spec.kernels;
  const std::string out = ShellQuote(out_dir);
  std::string s = "out=" + out + "\nrm -rf \"$out\" && mkdir -p \"$out\" || exit 2\n";
  s += "echo " + ShellQuote("[forkscope: kernels: " + selection.note + "]") + "\n";
  if (!spec.run.empty()) s += "/bin/sh -c " + ShellQuote(spec.run) + " || exit $?\n";
  if (selection.units.empty()) return s + "exit 1\n";
  if (k.arch == "auto") {
    s += "cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .\\r')\n";
    s += "[ -n \"$cc\" ] || { echo '[forkscope: kernels: arch = \"auto\" but nvidia-smi reports no GPU compute "
         "capability; name the architecture in the recipe]'; exit 2; }\n";
    s += std::string("arch=sm_${cc}") + (k.arch_specific ? "a" : "") + "\n";
  } else {
    s += "arch=" + ShellQuote(k.arch) + "\n";
  }
  s += "printf '%s\\n' \"$arch\" > \"$out/arch\"\n";
  s += "jobs=" + (k.jobs > 0 ? std::to_string(k.jobs) : std::string("$(nproc 2>/dev/null || echo 1)")) + "\n";
  s += "total=" + std::to_string(selection.units.size()) + "\n";
  // The flags come first: `-x c++` and the like apply to the files after them.
  std::string cmd = ShellQuote(k.compiler);
  for (const auto& f : k.flags) cmd += " " + ShellQuote(f);
  for (const auto& inc : k.include) cmd += " -I" + ShellQuote(tree + "/" + inc);
  cmd += " ${arch:+-arch=$arch} -c \"$2\" -o \"$out/$1.o\"";
  s += "unit() {\n"
       "  t0=$(date +%s%N)\n"
       "  " +
       cmd +
       " > \"$out/$1.log\" 2>&1\n"
       "  rc=$?\n"
       "  ms=$(( ($(date +%s%N) - t0) / 1000000 ))\n"
       "  rm -f \"$out/$1.o\"\n"
       "  printf '%s\\t%s\\t%s\\n' \"$1\" \"$rc\" \"$ms\" >> \"$out/results.tsv\"\n"
       "  if [ \"$rc\" -eq 0 ]; then echo \"[unit $1/$total] $3: compiled ${arch:+for $arch }in $ms ms\"\n"
       "  else printf '[unit %s/%s] %s: FAILED (exit %s) after %s ms\\n%s\\n' \"$1\" \"$total\" \"$3\" \"$rc\" \"$ms\" "
       "\"$(head -n 30 \"$out/$1.log\")\"; fi\n"
       "}\n";
  s += "echo \"[forkscope: kernels: compiling $total unit(s) ${arch:+for $arch, }$jobs at a time]\"\n";
  for (size_t i = 0; i < selection.units.size(); ++i) {
    const std::string& u = selection.units[i];
    s += "unit " + std::to_string(i + 1) + " " + ShellQuote(tree + "/" + u) + " " + ShellQuote(u) + " &\n";
    s += "[ $(( " + std::to_string(i + 1) + " % jobs )) -eq 0 ] && wait\n";
  }
  s += "wait\n";
  s += "failed=$(awk -F '\\t' '$2 != 0' \"$out/results.tsv\" | wc -l)\n";
  s += "echo \"[forkscope: kernels: $(( total - failed )) of $total unit(s) compiled${arch:+ for $arch}]\"\n";
  s += "[ \"$failed\" -eq 0 ]\n";
  return s;
}

std::string FirstCompilerError(const std::string& output) {
  // nvcc: "x.cuh(40): error: ...", gcc/clang: "x.cu:40:3: error: ...", "fatal error:", "error: ...".
  static const RE2 kError(R"((?i)(^|[\s:)])(fatal )?error\b)");
  std::string last;
  for (std::string_view line : base::SplitLines(output)) {
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    if (RE2::PartialMatch(line, kError)) return std::string(line.substr(0, 400));
    last = std::string(line.substr(0, 400));
  }
  return last;
}

void ReadKernelResults(const KernelSelection& selection, const std::string& tree, const std::string& out_dir,
                       storage::StageRecord& rec) {
  std::map<size_t, std::pair<int, int64_t>> done;  // unit index (1-based) -> exit status, ms
  std::istringstream results(ReadText(fs::path(out_dir) / "results.tsv"));
  for (std::string line; std::getline(results, line);) {
    size_t index = 0;
    int rc = 0;
    long long ms = 0;
    if (sscanf(line.c_str(), "%zu\t%d\t%lld", &index, &rc, &ms) == 3) done[index] = {rc, ms};
  }
  std::string arch = ReadText(fs::path(out_dir) / "arch");
  while (!arch.empty() && (arch.back() == '\n' || arch.back() == '\r')) arch.pop_back();
  json units = json::array();
  int failed = 0;
  std::string first_unit, first_error;
  for (size_t i = 0; i < selection.units.size(); ++i) {
    json u{{"path", selection.units[i]}, {"state", "not_run"}, {"duration_ms", nullptr}, {"error", nullptr}};
    if (auto it = done.find(i + 1); it != done.end()) {
      const bool ok = it->second.first == 0;
      u["state"] = ok ? "passed" : "failed";
      u["duration_ms"] = it->second.second;
      if (!ok) {
        std::string error = FirstCompilerError(ReadText(fs::path(out_dir) / (std::to_string(i + 1) + ".log")));
        for (size_t at = error.find(tree + "/"); at != std::string::npos; at = error.find(tree + "/", at))
          error.erase(at, tree.size() + 1);
        u["error"] = error;
        if (failed++ == 0) first_unit = selection.units[i], first_error = error;
      }
    }
    units.push_back(std::move(u));
  }
  rec.result = json{
      {"arch", arch.empty() ? json(nullptr) : json(arch)},
      {"how", selection.how},
      {"note", selection.note},
      {"units",
       units}}.dump();
  const bool stopped = rec.state == storage::JobState::kTimedOut || rec.state == storage::JobState::kCancelled ||
                       rec.state == storage::JobState::kLost;
  if (stopped) return;  // the executor's reason says why the units did not all run
  if (selection.units.empty()) {
    rec.state = storage::JobState::kFailed;
    rec.reason = "no kernel units to compile: " + selection.note;
    rec.reason_code = "stage.no_kernel_units";
    rec.reason_params = base::MessageParamsText({{"note", selection.note}});
  } else if (failed > 0) {
    rec.state = storage::JobState::kFailed;
    rec.reason = std::to_string(failed) + " of " + std::to_string(selection.units.size()) +
                 " kernel unit(s) failed to compile; first " + first_unit + ": " + first_error;
    rec.reason_code = "stage.kernel_unit";
    rec.reason_params = base::MessageParamsText({{"unit", first_unit},
                                                 {"error", first_error},
                                                 {"failed", std::to_string(failed)},
                                                 {"total", std::to_string(selection.units.size())}});
  }
}

}  // namespace forkscope::server
