#include "analyzer/classify/tree_findings.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace forkscope::analyzer {
namespace {

constexpr size_t kNamesInDetail = 5;

using DirPair = std::pair<std::string, std::string>;

bool IsMoved(const FileChange& file) { return file.status == FileStatus::kRenamed || !file.moved_from.empty(); }
const std::string& MovedFrom(const FileChange& file) {
  return file.moved_from.empty() ? file.old_path : file.moved_from;
}

std::vector<std::string> Components(const std::string& path) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t slash = path.find('/'); slash != std::string::npos; slash = path.find('/', start)) {
    parts.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  parts.push_back(path.substr(start));
  return parts;
}

std::string Join(const std::vector<std::string>& parts, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += parts[i] + "/";
  return out;
}

// The directories that map `from` onto `to`: both paths minus the file name and the directories they
// share at the end. "torch_x/ops/a_torch.py" -> "paddle_x/ops/a.py" gives ("torch_x/", "paddle_x/").
DirPair DirectoryPair(const std::string& from, const std::string& to) {
  const auto a = Components(from), b = Components(to);
  size_t common = 1;
  while (common < a.size() && common < b.size() && a[a.size() - 1 - common] == b[b.size() - 1 - common]) ++common;
  return {Join(a, a.size() - common), Join(b, b.size() - common)};
}

// Every directory above path, outermost first: "a/b/c.py" -> "a/", "a/b/".
std::vector<std::string> Ancestors(const std::string& path) {
  std::vector<std::string> dirs;
  for (size_t slash = path.find('/'); slash != std::string::npos; slash = path.find('/', slash + 1))
    dirs.push_back(path.substr(0, slash + 1));
  return dirs;
}

std::string CommonDirectory(const std::vector<std::string>& paths) {
  std::vector<std::string> common = Ancestors(paths.front());
  for (const auto& p : paths) {
    const auto dirs = Ancestors(p);
    size_t n = 0;
    while (n < common.size() && n < dirs.size() && common[n] == dirs[n]) ++n;
    common.resize(n);
  }
  return common.empty() ? "" : common.back();
}

std::string ShownDir(const std::string& dir) { return dir.empty() ? "./" : dir; }

std::string NameList(const std::string& dir, const std::vector<std::string>& paths) {
  std::string out;
  for (size_t i = 0; i < paths.size() && i < kNamesInDetail; ++i)
    out += (i > 0 ? ", " : "") + paths[i].substr(dir.size());
  if (paths.size() > kNamesInDetail) out += ", +" + std::to_string(paths.size() - kNamesInDetail) + " more";
  return out;
}

std::vector<std::string> PathsOf(const std::vector<FileChange>& files, const std::vector<size_t>& members) {
  std::vector<std::string> paths;
  for (size_t i : members) paths.push_back(files[i].path);
  return paths;
}

void AddMoves(const RulesData& rules, size_t r, const std::vector<FileChange>& files, std::vector<FileFinding>& out) {
  std::map<DirPair, std::vector<size_t>> groups;
  std::vector<size_t> singles;
  for (size_t i = 0; i < files.size(); ++i) {
    const FileChange& f = files[i];
    if (!IsMoved(f) || !InScope(rules.violations[r].scope, f, nullptr)) continue;
    DirPair pair = DirectoryPair(MovedFrom(f), f.path);
    if (pair.first == pair.second)
      singles.push_back(i);
    else
      groups[pair].push_back(i);
  }
  for (const auto& [pair, members] : groups) {
    if (members.size() < 2) {
      singles.push_back(members.front());
      continue;
    }
    out.push_back(
        {r,
         members.front(),
         pair.second,
         ShownDir(pair.first) + " -> " + ShownDir(pair.second) + " (" + std::to_string(members.size()) + " files)",
         PathsOf(files, members),
         {{"from", ShownDir(pair.first)}, {"to", ShownDir(pair.second)}, {"count", std::to_string(members.size())}}});
  }
  for (size_t i : singles)
    out.push_back({r,
                   i,
                   files[i].path,
                   MovedFrom(files[i]) + " -> " + files[i].path,
                   {},
                   {{"from", MovedFrom(files[i])}, {"to", files[i].path}}});
}

void AddDeletions(const RulesData& rules, size_t r, const std::vector<FileChange>& files,
                  std::vector<FileFinding>& out) {
  std::set<std::string> move_sources, mixed;  // mixed: directories with a change other than a deletion
  for (const auto& f : files)
    if (IsMoved(f)) move_sources.insert(MovedFrom(f));
  auto is_deletion = [&](const FileChange& f) {
    return f.status == FileStatus::kDeleted && !move_sources.count(f.path);
  };
  for (const auto& f : files) {
    if (is_deletion(f)) continue;
    for (const std::string* p : {&f.path, &f.old_path, &f.moved_from})
      for (auto& dir : Ancestors(*p)) mixed.insert(std::move(dir));
  }
  std::map<std::string, std::vector<size_t>> groups;
  for (size_t i = 0; i < files.size(); ++i) {
    const FileChange& f = files[i];
    if (!is_deletion(f) || !InScope(rules.violations[r].scope, f, nullptr)) continue;
    const auto dirs = Ancestors(f.path);
    auto top = std::find_if(dirs.begin(), dirs.end(), [&](const std::string& d) { return !mixed.count(d); });
    groups[top != dirs.end() ? *top : (dirs.empty() ? "" : dirs.back())].push_back(i);
  }
  for (const auto& [key, members] : groups) {
    if (key.empty() || members.size() < 2) {
      for (size_t i : members) out.push_back({r, i, files[i].path, "", {}});
      continue;
    }
    std::vector<std::string> paths = PathsOf(files, members);
    const std::string dir = CommonDirectory(paths);
    out.push_back({r,
                   members.front(),
                   dir,
                   std::to_string(paths.size()) + " files under " + dir + ": " + NameList(dir, paths),
                   paths,
                   {{"dir", dir}, {"count", std::to_string(paths.size())}, {"names", NameList(dir, paths)}}});
  }
}

}  // namespace

std::vector<FileFinding> FindFileFindings(const RulesData& rules, const std::vector<FileChange>& files) {
  std::vector<FileFinding> out;
  for (size_t r = 0; r < rules.violations.size(); ++r) {
    if (rules.violations[r].check == ViolationCheck::kRenamedFile) AddMoves(rules, r, files, out);
    if (rules.violations[r].check == ViolationCheck::kDeletedFile) AddDeletions(rules, r, files, out);
  }
  std::stable_sort(out.begin(), out.end(), [](const FileFinding& a, const FileFinding& b) {
    return a.first_file != b.first_file ? a.first_file < b.first_file : a.rule < b.rule;
  });
  return out;
}

}  // namespace forkscope::analyzer
