#include "analyzer/classify/moves.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace forkscope::analyzer {
namespace {

constexpr int kCopySimilarity = 50;
constexpr size_t kMaxCopyCandidates = 8;
// An empty file copies nothing: a new empty __init__.py is not a copy of an upstream one.
constexpr const char* kEmptyBlob = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";

std::string BaseName(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::vector<std::string> SplitPath(const std::string& path) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    auto slash = path.find('/', start);
    parts.push_back(path.substr(start, slash - start));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return parts;
}

// The directory pair that maps from_path onto to_path: the paths minus their common trailing part.
std::pair<std::string, std::string> DirectoryMapping(const std::string& from_path, const std::string& to_path) {
  auto a = SplitPath(from_path), b = SplitPath(to_path);
  size_t common = 0;
  while (common < a.size() - 1 && common < b.size() - 1 && a[a.size() - 1 - common] == b[b.size() - 1 - common])
    ++common;
  auto join = [](const std::vector<std::string>& parts, size_t n) {
    std::string out;
    for (size_t i = 0; i < n; ++i) out += parts[i] + "/";
    return out;
  };
  size_t keep = std::max<size_t>(common, 1);
  return {join(a, a.size() - keep), join(b, b.size() - keep)};
}

std::string StripFirstComponent(const std::string& path) {
  auto slash = path.find('/');
  return slash == std::string::npos ? "" : path.substr(slash + 1);
}

std::string Trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return std::string(s.substr(b, e - b + 1));
}

struct Group {
  int files = 0, verbatim = 0, adapted = 0;
};
using Groups = std::map<std::pair<std::string, std::string>, Group>;
using Blob = std::pair<std::string, std::string>;  // (path, blob id)
using BlobsByName = std::unordered_map<std::string, std::vector<const Blob*>>;

void Count(Groups& groups, const std::string& from, const std::string& to, bool verbatim) {
  Group& g = groups[DirectoryMapping(from, to)];
  ++g.files;
  (verbatim ? g.verbatim : g.adapted)++;
}

// The base file an added file copies: the same blob, else the most similar base file of the same
// name (at least kCopySimilarity). verbatim tells which. "" when none.
std::string CopySource(const git::DiffFile& f, const std::unordered_map<std::string, std::string>& by_oid,
                       const BlobsByName& by_name, const BlobLoader& load, bool& verbatim) {
  verbatim = false;
  if (auto it = by_oid.find(f.new_oid); it != by_oid.end()) {
    verbatim = true;
    return it->second;
  }
  if (f.change.binary) return "";
  auto cands = by_name.find(BaseName(f.change.path));
  if (cands == by_name.end() || cands->second.size() > kMaxCopyCandidates) return "";
  std::string text = f.new_text.empty() ? load(f.new_oid) : f.new_text;
  int best = 0;
  std::string best_path;
  for (const auto* cand : cands->second) {
    int sim = LineSimilarity(load(cand->second), text);
    if (sim > best) best = sim, best_path = cand->first;
  }
  return best >= kCopySimilarity ? best_path : "";
}

// Sets copied_from on added files that copy a base file the fork kept; git -M reports them as plain
// additions and so do we (status and similarity untouched).
void MarkCopies(const std::vector<Blob>& base_blobs, const BlobLoader& load, std::vector<git::DiffFile>& files,
                Groups& copies) {
  std::unordered_set<std::string> deleted;
  for (const auto& f : files)
    if (f.change.status == FileStatus::kDeleted) deleted.insert(f.change.path);
  std::unordered_map<std::string, std::string> by_oid;
  BlobsByName by_name;
  for (const auto& blob : base_blobs) {
    if (deleted.count(blob.first)) continue;  // a deleted source is a move, not a copy
    by_oid.emplace(blob.second, blob.first);
    by_name[BaseName(blob.first)].push_back(&blob);
  }
  for (auto& f : files) {
    FileChange& c = f.change;
    if (c.status != FileStatus::kAdded || f.new_oid.empty() || f.new_oid == kEmptyBlob) continue;
    bool verbatim = false;
    c.copied_from = CopySource(f, by_oid, by_name, load, verbatim);
    if (!c.copied_from.empty()) Count(copies, c.copied_from, c.path, verbatim);
  }
}

// Pairs deleted and added files whose paths agree below a differing top directory.
void PairMovedFiles(std::vector<git::DiffFile>& files, Groups& moves) {
  std::map<std::string, std::vector<size_t>> deleted_by_rest, added_by_rest;
  for (size_t i = 0; i < files.size(); ++i) {
    const auto& c = files[i].change;
    std::string rest = StripFirstComponent(c.path);
    if (rest.empty()) continue;
    if (c.status == FileStatus::kDeleted) deleted_by_rest[rest].push_back(i);
    if (c.status == FileStatus::kAdded && c.copied_from.empty()) added_by_rest[rest].push_back(i);
  }
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<size_t, size_t>>> candidates;
  for (const auto& [rest, dels] : deleted_by_rest) {
    auto it = added_by_rest.find(rest);
    if (it == added_by_rest.end() || dels.size() != 1 || it->second.size() != 1) continue;
    size_t d = dels[0], a = it->second[0];
    candidates[DirectoryMapping(files[d].change.path, files[a].change.path)].push_back({d, a});
  }
  for (const auto& [mapping, pairs] : candidates) {
    bool known_move = moves.count(mapping) > 0;
    if (pairs.size() < 2 && !known_move) continue;
    Group& g = moves[mapping];
    for (auto [d, a] : pairs) {
      files[a].change.moved_from = files[d].change.path;
      ++g.files;
      ++g.adapted;
    }
  }
}

}  // namespace

int LineSimilarity(const std::string& a, const std::string& b) {
  std::unordered_map<std::string, int> counts;
  int na = 0, nb = 0, common = 0;
  auto each_line = [](const std::string& text, auto&& fn) {
    size_t start = 0;
    while (start < text.size()) {
      size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      std::string line = Trim(std::string_view(text).substr(start, end - start));
      if (!line.empty()) fn(line);
      start = end + 1;
    }
  };
  each_line(a, [&](const std::string& l) {
    ++counts[l];
    ++na;
  });
  each_line(b, [&](const std::string& l) {
    ++nb;
    auto it = counts.find(l);
    if (it != counts.end() && it->second > 0) --it->second, ++common;
  });
  if (na + nb == 0) return 0;
  return 200 * common / (na + nb);
}

std::vector<TreeMove> DetectMovesAndCopies(const std::vector<std::pair<std::string, std::string>>& base_blobs,
                                           const BlobLoader& load, std::vector<git::DiffFile>& files) {
  Groups moves, copies;
  MarkCopies(base_blobs, load, files, copies);
  for (const auto& f : files) {
    const FileChange& c = f.change;
    if (c.status == FileStatus::kRenamed) Count(moves, c.old_path, c.path, c.similarity == 100);
  }
  PairMovedFiles(files, moves);
  std::vector<TreeMove> out;
  auto emit = [&out](const char* kind, const auto& groups) {
    for (const auto& [mapping, g] : groups) {
      if (g.files < 2 || mapping.first == mapping.second) continue;
      out.push_back({kind, mapping.first, mapping.second, g.files, g.verbatim, g.adapted});
    }
  };
  emit("move", moves);
  emit("copy", copies);
  return out;
}

}  // namespace forkscope::analyzer
