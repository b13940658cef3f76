// Reading a conflicted merge index into CarryConflicts (replay_internal.h): the three sides of each
// conflicting path, its kind, and its regions. A region comes from libgit2's file merge in diff3 style
// (the text git would leave with conflict markers, the base section included); its base line is found
// by diffing the base against the merge output with every region put back to its base lines, where the
// region's lines are unchanged context. One thread (the replay's).
#include <git2.h>
#include <git2/sys/index.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "analyzer/git/replay_internal.h"
#include "analyzer/git/repo_impl.h"
#include "base/text.h"

namespace forkscope::analyzer::git {
namespace {

constexpr size_t kBinaryProbe = 8000;  // git's heuristic: a NUL in the first 8000 bytes means binary
constexpr uint32_t kModeTypeMask = 0170000;
constexpr uint32_t kModeFile = 0100000;

struct Side {
  std::string path;
  git_oid id{};
  uint32_t mode = 0;  // 0: this side has no file
  bool present() const { return mode != 0; }
};

struct RawConflict {
  Side ancestor, ours, theirs;
  bool any() const { return ancestor.present() || ours.present() || theirs.present(); }
};

Side SideOf(const git_index_entry* e) {
  if (!e) return {};
  return {e->path, e->id, e->mode};
}

// libgit2 puts each stage of a rename conflict at its own path and records the rename as a name entry
// (ancestor path, our path, their path; null where a side has no file): join the stages again.
Result<std::vector<RawConflict>> RawConflicts(git_index* index) {
  std::map<std::string, RawConflict> by_path;
  git_index_conflict_iterator* raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_index_conflict_iterator_new(&raw, index), "conflict iterator"));
  ConflictIterPtr it(raw);
  const git_index_entry *a = nullptr, *o = nullptr, *t = nullptr;
  int rc = 0;
  while ((rc = git_index_conflict_next(&a, &o, &t, it.get())) == 0) {
    const char* path = a ? a->path : o ? o->path : t->path;
    by_path[path] = {SideOf(a), SideOf(o), SideOf(t)};
  }
  if (rc != GIT_ITEROVER) return FromGit(rc, "conflict iterator");
  std::vector<RawConflict> out;
  auto take = [&by_path](const char* path, Side RawConflict::*side) {
    if (!path) return Side{};
    auto found = by_path.find(path);
    return found == by_path.end() ? Side{} : std::exchange(found->second.*side, Side{});
  };
  for (size_t i = 0; i < git_index_name_entrycount(index); ++i) {
    const git_index_name_entry* n = git_index_name_get_byindex(index, i);
    if (!n) continue;
    RawConflict joined{take(n->ancestor, &RawConflict::ancestor), take(n->ours, &RawConflict::ours),
                       take(n->theirs, &RawConflict::theirs)};
    if (joined.any()) out.push_back(std::move(joined));
  }
  for (auto& [path, c] : by_path)
    if (c.any()) out.push_back(std::move(c));
  return out;
}

ConflictKind KindOf(const RawConflict& c) {
  const bool a = c.ancestor.present(), o = c.ours.present(), t = c.theirs.present();
  const bool ours_moved = a && o && c.ours.path != c.ancestor.path;
  const bool theirs_moved = a && t && c.theirs.path != c.ancestor.path;
  if (a && o && t)
    return ours_moved && theirs_moved && c.ours.path != c.theirs.path ? ConflictKind::kRename : ConflictKind::kContent;
  if (a && (o || t)) return ours_moved || theirs_moved ? ConflictKind::kRename : ConflictKind::kModifyDelete;
  if (!a && o && t) return c.ours.path == c.theirs.path ? ConflictKind::kAddAdd : ConflictKind::kRename;
  return ConflictKind::kRename;  // a lone side of a rename conflict (e.g. rename/rename, one of its paths)
}

Result<std::string> BlobText(git_repository* repo, const Side& side) {
  if (!side.present()) return std::string();
  git_blob* raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_blob_lookup(&raw, repo, &side.id), "blob of " + side.path));
  BlobPtr blob(raw);
  return std::string(static_cast<const char*>(git_blob_rawcontent(blob.get())),
                     static_cast<size_t>(git_blob_rawsize(blob.get())));
}

bool LooksBinary(const std::string& text) {
  return std::memchr(text.data(), '\0', std::min(text.size(), kBinaryProbe)) != nullptr;
}

void CapSide(std::vector<std::string>& lines, size_t max_lines, bool& truncated) {
  if (lines.size() <= max_lines) return;
  lines.resize(max_lines);
  truncated = true;
}

// The regions of a file one side changed and the other deleted: the changing side's hunks against the
// base (no context), the deleting side's lines empty.
Result<std::vector<ConflictRegion>> OneSidedRegions(const std::string& base, const std::string& side, bool upstream,
                                                    size_t max_lines) {
  git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
  opts.context_lines = 0;
  opts.interhunk_lines = 0;
  git_patch* raw = nullptr;
  FS_RETURN_IF_ERROR(
      FromGit(git_patch_from_buffers(&raw, base.data(), base.size(), nullptr, side.data(), side.size(), nullptr, &opts),
              "side diff"));
  PatchPtr patch(raw);
  std::vector<ConflictRegion> out;
  for (size_t h = 0; patch && h < git_patch_num_hunks(patch.get()); ++h) {
    const git_diff_hunk* gh = nullptr;
    size_t nlines = 0;
    FS_RETURN_IF_ERROR(FromGit(git_patch_get_hunk(&gh, &nlines, patch.get(), h), "hunk"));
    Hunk hunk;
    FS_RETURN_IF_ERROR(ReadHunkLines(patch.get(), h, nlines, hunk));
    ConflictRegion r;
    r.base_start = gh->old_lines == 0 ? gh->old_start + 1 : gh->old_start;  // an insertion: before the next line
    for (const auto& l : hunk.lines)
      (l.origin == '-' ? r.base_lines : upstream ? r.upstream_lines : r.fork_lines).push_back(l.text);
    CapSide(r.base_lines, max_lines, r.truncated);
    CapSide(upstream ? r.upstream_lines : r.fork_lines, max_lines, r.truncated);
    out.push_back(std::move(r));
  }
  return out;
}

bool IsMarker(std::string_view line, char c) {
  if (line.size() < 7 || line.find_first_not_of(c) < 7) return false;
  return line.size() == 7 || line[7] == ' ';
}

// 1-based base line of a 0-based line index of the merge output with regions put back to base lines.
int BaseLineOf(const std::vector<std::pair<int, int>>& shifts, int index) {
  int offset = 0;
  for (const auto& [at, delta] : shifts)
    if (at <= index) offset += delta;
  return index + offset + 1;
}

// The regions of a diff3-style merge output, and the output with each region replaced by its base lines
// (rebuilt) with the line index each region starts at there.
struct Markers {
  std::vector<ConflictRegion> regions;
  std::vector<int> starts;
  std::string rebuilt;
};

Markers ParseMarkers(const std::string& text) {
  Markers m;
  int rebuilt_lines = 0, section = 0;  // 0 outside, 1 upstream (ours), 2 base, 3 fork (theirs)
  for (std::string_view line : base::SplitLines(text)) {
    if (section == 0 && IsMarker(line, '<')) {
      m.regions.emplace_back();
      m.starts.push_back(rebuilt_lines);
      section = 1;
    } else if (section == 1 && IsMarker(line, '|')) {
      section = 2;
    } else if ((section == 1 || section == 2) && line == "=======") {
      section = 3;
    } else if (section == 3 && IsMarker(line, '>')) {
      section = 0;
    } else if (section == 0) {
      m.rebuilt.append(line).push_back('\n');
      ++rebuilt_lines;
    } else {
      auto& r = m.regions.back();
      (section == 1 ? r.upstream_lines : section == 2 ? r.base_lines : r.fork_lines).emplace_back(line);
      if (section == 2) m.rebuilt.append(line).push_back('\n'), ++rebuilt_lines;
    }
  }
  return m;
}

// Each hunk of base -> rebuilt, as (first rebuilt line after it, old - new lines): the shift of the base
// lines after it.
std::vector<std::pair<int, int>> Shifts(const std::string& base, const std::string& rebuilt) {
  std::vector<std::pair<int, int>> shifts;
  git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
  opts.context_lines = 0;
  opts.interhunk_lines = 0;
  git_patch* raw = nullptr;
  if (git_patch_from_buffers(&raw, base.data(), base.size(), nullptr, rebuilt.data(), rebuilt.size(), nullptr, &opts) !=
      0)
    return shifts;
  PatchPtr patch(raw);
  for (size_t h = 0; patch && h < git_patch_num_hunks(patch.get()); ++h) {
    const git_diff_hunk* gh = nullptr;
    size_t n = 0;
    if (git_patch_get_hunk(&gh, &n, patch.get(), h) < 0) break;
    int end = (gh->new_lines == 0 ? gh->new_start : gh->new_start - 1) + gh->new_lines;
    shifts.emplace_back(end, gh->old_lines - gh->new_lines);
  }
  return shifts;
}

}  // namespace

std::vector<ConflictRegion> Diff3Regions(const std::string& base, const std::string& upstream, const std::string& fork,
                                         size_t max_lines) {
  git_merge_file_input in[3];
  const std::string* texts[3] = {&base, &upstream, &fork};
  for (int i = 0; i < 3; ++i) {
    git_merge_file_input_init(&in[i], GIT_MERGE_FILE_INPUT_VERSION);
    in[i].ptr = texts[i]->data();
    in[i].size = texts[i]->size();
  }
  git_merge_file_options opts = GIT_MERGE_FILE_OPTIONS_INIT;
  opts.flags = GIT_MERGE_FILE_STYLE_DIFF3;
  git_merge_file_result merged{};
  if (git_merge_file(&merged, &in[0], &in[1], &in[2], &opts) < 0) return {};
  Markers m = ParseMarkers(std::string(merged.ptr ? merged.ptr : "", merged.len));
  git_merge_file_result_free(&merged);
  auto shifts = Shifts(base, m.rebuilt);
  for (size_t i = 0; i < m.regions.size(); ++i) {
    ConflictRegion& r = m.regions[i];
    r.base_start = BaseLineOf(shifts, m.starts[i]);
    CapSide(r.base_lines, max_lines, r.truncated);
    CapSide(r.upstream_lines, max_lines, r.truncated);
    CapSide(r.fork_lines, max_lines, r.truncated);
  }
  return std::move(m.regions);
}

namespace {

Status FillRegions(git_repository* repo, const RawConflict& raw, const ReplayRequest& request, CarryConflict& c) {
  for (const Side* s : {&raw.ancestor, &raw.ours, &raw.theirs})
    if (s->present() && (s->mode & kModeTypeMask) != kModeFile) return Status::Ok();  // links, submodules
  FS_ASSIGN_OR_RETURN(std::string base, BlobText(repo, raw.ancestor));
  FS_ASSIGN_OR_RETURN(std::string upstream, BlobText(repo, raw.ours));
  FS_ASSIGN_OR_RETURN(std::string fork, BlobText(repo, raw.theirs));
  if (LooksBinary(base) || LooksBinary(upstream) || LooksBinary(fork)) {
    c.binary = true;
    return Status::Ok();
  }
  if (raw.ours.present() && raw.theirs.present()) {
    c.regions = Diff3Regions(base, upstream, fork, request.max_region_lines);
  } else if (raw.ancestor.present() && (raw.ours.present() || raw.theirs.present())) {
    bool upstream_kept = raw.ours.present();
    FS_ASSIGN_OR_RETURN(
        c.regions, OneSidedRegions(base, upstream_kept ? upstream : fork, upstream_kept, request.max_region_lines));
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<CarryConflict>> ReadConflicts(git_repository* repo, git_index* index, const ReplayRequest& request,
                                                 std::vector<std::string>& notices) {
  FS_ASSIGN_OR_RETURN(auto raws, RawConflicts(index));
  std::vector<CarryConflict> out;
  for (const auto& raw : raws) {
    CarryConflict c;
    c.base_path = raw.ancestor.present() ? raw.ancestor.path : "";
    c.upstream_path = raw.ours.present() ? raw.ours.path : "";
    c.fork_path = raw.theirs.present() ? raw.theirs.path : "";
    c.path = !c.fork_path.empty() ? c.fork_path : !c.base_path.empty() ? c.base_path : c.upstream_path;
    c.kind = KindOf(raw);
    FS_RETURN_IF_ERROR(FillRegions(repo, raw, request, c));
    if (c.regions.size() > request.max_regions) {
      notices.push_back(c.path + ": only the first " + std::to_string(request.max_regions) + " of " +
                        std::to_string(c.regions.size()) + " conflicting regions are listed");
      c.regions.resize(request.max_regions);
    }
    out.push_back(std::move(c));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  return out;
}

}  // namespace forkscope::analyzer::git
