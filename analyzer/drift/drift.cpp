// Drift of a fork against its upstream. Four computations over one PairRepo, all in memory:
//
// 1. Counts: ahead/behind from the commit graph, counted from the base the analysis used
//    (AheadBehindFromBase: for a given or searched base, the fork's commits not reachable from it and
//    upstream's since it); base age = now - the base's committer time, in days, rounded to 0.01 (never
//    negative).
// 2. Upstream commits touching patched files: upstream commits since the merge-base are walked oldest
//    first (parents before children), each diffed against its parent (a commit that deletes a
//    followed file and adds others is diffed again with rename detection, git's -M50%). Every file the fork changed is
//    followed from its merge-base path (old_path for a fork rename; the fork's own path for files the fork added)
//    through upstream renames, so a commit that edits the file under its new upstream name is still reported under the
//    fork's path. A commit touches a fork file when it modifies, deletes, renames or (re-)adds it at the path upstream
//    has it then. Merge commits bring no changes of their own. Listed newest first.
// 3. Predicted conflicts: libgit2's three-way merge of the trees (ancestor = merge-base, ours =
//    upstream head, theirs = fork head; rename detection on, as git merge-tree does), no work tree.
//    Each conflicted path is reported once under the fork's path (theirs; else the fork path of the
//    ancestor's or of upstream's path, followed as in 2), sorted, with the layer of the fork's change
//    there. git merge-tree names a rename conflict by upstream's new path; this names the fork's.
//    Each has the kind carry gives it (content, modify/delete with the side that deleted the file, add/add,
//    rename).
// 4. Redundant hunks — a fork hunk H of file F (hunks cut as the analysis cuts them: merge-base blob
//    -> fork blob, context_lines of context) is redundant when all of:
//      a. upstream's head has F (at the path it was followed to) as a text file whose blob differs
//         from the merge-base blob (upstream changed F; a fork-added F must have been added upstream);
//      b. H's post-image — its context and '+' lines, in order — occurs as a contiguous run of lines
//         in upstream's F (lines compared exactly, without their line ends);
//      c. that post-image does not occur in the merge-base's F (the run is new, not text that was
//         always there).
//    I.e. upstream now contains the result of the fork's change, so the patch may be dropped. Files
//    the fork deleted and binary files have no redundant hunks.
//
// The risk score over these figures is a function of the report (analyzer/model/drift.cpp).

#include "analyzer/drift/drift.h"
#include "base/log.h"
#include "base/text.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <set>
#include <string_view>
#include <tuple>
#include <unordered_map>

namespace forkscope::analyzer {
namespace {

constexpr double kSecondsPerDay = 86400.0;
constexpr const char* kEmptyBlob = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";

double Round2(double x) { return std::round(x * 100.0) / 100.0; }

// A fork-changed file followed through upstream's history.
struct Tracked {
  size_t file = 0;            // index into Analysis::files
  std::string base_path;      // its path at the merge-base (the fork's path for files it added)
  std::string upstream_path;  // where upstream has it now
  bool present = false;       // upstream has a file at upstream_path now
};

class PathTracker {
 public:
  explicit PathTracker(const Analysis& analysis) {
    for (size_t i = 0; i < analysis.files.size(); ++i) {
      const FileChange& f = analysis.files[i];
      bool added = f.status == FileStatus::kAdded || f.status == FileStatus::kCopied;
      std::string base = f.status == FileStatus::kRenamed ? f.old_path : f.path;
      Add({i, base, base, !added});
    }
  }

  // Applies one commit's changes; returns the Analysis::files indexes it touched.
  std::set<size_t> Apply(const std::vector<git::PathChange>& changes) {
    std::set<size_t> touched;
    for (const auto& c : changes) {
      const std::string& at = c.status == 'A' || c.status == 'M' || c.status == 'T' ? c.new_path : c.old_path;
      auto it = by_path_.find(at);
      std::vector<size_t> hits = it == by_path_.end() ? std::vector<size_t>() : it->second;
      if (c.status == 'R') {  // a rename onto a path the fork added touches that file as well
        auto onto = by_path_.find(c.new_path);
        if (onto != by_path_.end()) hits.insert(hits.end(), onto->second.begin(), onto->second.end());
      }
      for (size_t t : hits) {
        touched.insert(tracked_[t].file);
        if (c.status == 'D') tracked_[t].present = false;
        if (c.status == 'A') tracked_[t].present = true;
        if (c.status == 'R' && tracked_[t].upstream_path == c.old_path)
          Move(t, c.new_path);
        else if (c.status == 'R')
          tracked_[t].present = true;
      }
    }
    return touched;
  }

  const std::vector<Tracked>& tracked() const { return tracked_; }

  // Whether changes need rename detection to be followed: a followed file is deleted in a commit
  // that also adds files (it may have moved there).
  bool NeedsRenames(const std::vector<git::PathChange>& changes) const {
    bool adds = false, deletes_followed = false;
    for (const auto& c : changes) {
      adds = adds || c.status == 'A';
      if (c.status == 'D') {
        auto it = by_path_.find(c.old_path);
        deletes_followed = deletes_followed || (it != by_path_.end() && !it->second.empty());
      }
    }
    return adds && deletes_followed;
  }

 private:
  void Add(Tracked t) {
    by_path_[t.upstream_path].push_back(tracked_.size());
    tracked_.push_back(std::move(t));
  }

  void Move(size_t t, const std::string& to) {
    auto& from = by_path_[tracked_[t].upstream_path];
    from.erase(std::remove(from.begin(), from.end(), t), from.end());
    tracked_[t].upstream_path = to;
    tracked_[t].present = true;
    by_path_[to].push_back(t);
  }

  std::vector<Tracked> tracked_;
  std::unordered_map<std::string, std::vector<size_t>> by_path_;  // upstream path -> tracked_ indexes
};

Status WalkUpstream(const git::PairRepo& repo, const Analysis& analysis, const DriftOptions& options,
                    PathTracker& tracker, DriftReport& report) {
  // One commit more than the limit tells a cut walk from one that ended exactly at it.
  FS_ASSIGN_OR_RETURN(auto commits,
                      repo.CommitsOldestFirst(report.merge_base, report.upstream_sha, options.max_commits + 1));
  bool cut = static_cast<int>(commits.size()) > options.max_commits;
  if (cut) commits.resize(static_cast<size_t>(options.max_commits));
  report.upstream_commits_scanned = static_cast<int>(commits.size());
  if (cut)
    report.notices.push_back("only the first " + std::to_string(options.max_commits) +
                             " upstream commits after the merge-base were scanned for files the fork patched");
  for (auto& c : commits) {
    if (tracker.NeedsRenames(c.changes)) {
      FS_ASSIGN_OR_RETURN(c.changes, repo.ChangesWithRenames(c.info.sha));
    }
    std::set<size_t> touched = tracker.Apply(c.changes);
    if (touched.empty()) continue;
    std::map<std::string, Layer> by_path;  // sorted by the fork's path
    for (size_t i : touched) by_path[analysis.files[i].path] = analysis.files[i].layer;
    UpstreamTouch t{c.info.sha, c.info.subject, c.info.author_time, {}, {}};
    for (const auto& [path, layer] : by_path) {
      t.paths.push_back(path);
      t.layers.push_back(layer);
    }
    report.upstream_commits_touching_patched.push_back(std::move(t));
  }
  std::reverse(report.upstream_commits_touching_patched.begin(), report.upstream_commits_touching_patched.end());
  return Status::Ok();
}

Layer LayerAt(const Analysis& analysis, const std::string& path) {
  for (const auto& f : analysis.files)
    if (f.path == path) return f.layer;
  return Layer::kOther;
}

// The fork's path for a conflicted index entry. libgit2 splits a rename conflict into entries per path
// (e.g. {ancestor a, theirs a} and {ours b} when upstream renamed a to b and both edited it): a side
// missing the fork's path is mapped back through the merge-base path or upstream's followed path.
std::string ForkPathOf(const git::MergeConflictPaths& c, const Analysis& analysis, const PathTracker& tracker) {
  if (!c.their_path.empty()) return c.their_path;
  for (const auto& t : tracker.tracked()) {
    if (!c.ancestor_path.empty() && t.base_path == c.ancestor_path) return analysis.files[t.file].path;
    if (c.ancestor_path.empty() && t.upstream_path == c.our_path) return analysis.files[t.file].path;
  }
  return !c.ancestor_path.empty() ? c.ancestor_path : c.our_path;
}

// The kind of one conflicted index entry, as the carry names it (analyzer/git/replay_conflicts.cpp).
ConflictKind KindOf(const git::MergeConflictPaths& c) {
  const bool a = !c.ancestor_path.empty(), o = !c.our_path.empty(), t = !c.their_path.empty();
  const bool ours_moved = a && o && c.our_path != c.ancestor_path;
  const bool theirs_moved = a && t && c.their_path != c.ancestor_path;
  if (a && o && t)
    return ours_moved && theirs_moved && c.our_path != c.their_path ? ConflictKind::kRename : ConflictKind::kContent;
  if (a && (o || t)) return ours_moved || theirs_moved ? ConflictKind::kRename : ConflictKind::kModifyDelete;
  if (!a && o && t) return c.our_path == c.their_path ? ConflictKind::kAddAdd : ConflictKind::kRename;
  return ConflictKind::kRename;
}

Status PredictConflicts(const git::PairRepo& repo, const Analysis& analysis, const PathTracker& tracker,
                        DriftReport& report) {
  FS_ASSIGN_OR_RETURN(auto conflicts, repo.MergeConflicts(report.merge_base, report.upstream_sha, report.fork_sha));
  std::map<std::string, PredictedConflict> by_path;  // a rename conflict's entries meet at one fork path
  for (const auto& c : conflicts) {
    const std::string path = ForkPathOf(c, analysis, tracker);
    const ConflictKind kind = KindOf(c);
    auto [it, added] = by_path.try_emplace(path, PredictedConflict{path, LayerAt(analysis, path), kind, ""});
    if (!added && kind == ConflictKind::kRename) it->second.kind = kind;
    if (it->second.kind == ConflictKind::kModifyDelete)
      it->second.deleted_by = c.their_path.empty() ? "fork" : "upstream";
    else
      it->second.deleted_by.clear();
  }
  for (auto& [path, c] : by_path) report.predicted_conflicts.push_back(std::move(c));
  return Status::Ok();
}

bool ContainsRun(const std::vector<std::string_view>& text, const std::vector<std::string_view>& run) {
  return std::search(text.begin(), text.end(), run.begin(), run.end()) != text.end();
}

// Loads a blob's text; nullopt when it is missing or over the size cap (not the same as empty).
std::optional<std::string> LoadText(const git::PairRepo& repo, const std::string& oid, size_t max_bytes) {
  if (oid.empty() || oid == kEmptyBlob) return std::string();
  std::string text = repo.BlobText(oid, max_bytes);
  if (text.empty()) return std::nullopt;
  return text;
}

Status RedundantHunksOf(const git::PairRepo& repo, const Tracked& t, const FileChange& f, const DriftOptions& options,
                        DriftReport& report) {
  bool added = f.status == FileStatus::kAdded || f.status == FileStatus::kCopied;
  FS_ASSIGN_OR_RETURN(std::string upstream_oid, repo.BlobAt(report.upstream_sha, t.upstream_path));
  std::string base_oid;
  if (!added) {
    FS_ASSIGN_OR_RETURN(base_oid, repo.BlobAt(report.merge_base, t.base_path));
  }
  if (upstream_oid.empty() || upstream_oid == base_oid) return Status::Ok();  // (a)
  FS_ASSIGN_OR_RETURN(std::string fork_oid, repo.BlobAt(report.fork_sha, f.path));
  auto upstream_text = LoadText(repo, upstream_oid, options.max_text_bytes);
  auto base_text = LoadText(repo, base_oid, options.max_text_bytes);
  if (!upstream_text || !base_text) return Status::Ok();
  FS_ASSIGN_OR_RETURN(auto hunks, repo.BlobHunks(base_oid, fork_oid, options.context_lines));
  auto upstream_lines = base::SplitLines(*upstream_text);
  auto base_lines = base::SplitLines(*base_text);
  for (const auto& h : hunks) {
    std::vector<std::string_view> post;
    for (const auto& l : h.lines)
      if (l.origin != '-') post.push_back(l.text);
    if (post.empty()) continue;
    if (ContainsRun(upstream_lines, post) && !ContainsRun(base_lines, post))  // (b), (c)
      report.redundant_hunks.push_back({f.path, h.old_start, h.new_start});
  }
  return Status::Ok();
}

Status FindRedundantHunks(const git::PairRepo& repo, const Analysis& analysis, const PathTracker& tracker,
                          const DriftOptions& options, DriftReport& report) {
  for (const auto& t : tracker.tracked()) {
    const FileChange& f = analysis.files[t.file];
    if (!t.present || f.status == FileStatus::kDeleted || f.binary) continue;
    FS_RETURN_IF_ERROR(RedundantHunksOf(repo, t, f, options, report));
  }
  std::sort(report.redundant_hunks.begin(), report.redundant_hunks.end(), [](const auto& a, const auto& b) {
    return std::tie(a.path, a.old_start, a.new_start) < std::tie(b.path, b.old_start, b.new_start);
  });
  return Status::Ok();
}

Status FillCounts(const git::PairRepo& repo, const Analysis& header, int64_t now, DriftReport& report) {
  FS_ASSIGN_OR_RETURN(auto ab, AheadBehindFromBase(repo, header));
  report.ahead = ab.first;
  report.behind = ab.second;
  FS_ASSIGN_OR_RETURN(git::CommitInfo base, repo.Commit(report.merge_base));
  report.merge_base_time = base.committer_time;
  report.merge_base_age_days =
      Round2(std::max<double>(0, static_cast<double>(now - base.committer_time)) / kSecondsPerDay);
  return Status::Ok();
}

}  // namespace

Result<DriftReport> ComputeDrift(const ResolvedPair& pair, const Analysis& analysis, int64_t now,
                                 const DriftOptions& options) {
  const Analysis& h = pair.header;
  if (h.merge_base.empty()) return FailedPrecondition("drift needs a base: the fork and upstream share no commit");
  DriftReport report;
  report.fork = h.fork.url;
  report.fork_branch = h.fork.branch;
  report.upstream_branch = h.upstream.branch;
  report.fork_sha = h.fork.sha;
  report.upstream_sha = h.upstream.sha;
  report.merge_base = h.merge_base;
  report.base_source = h.base_source;
  if (h.base_source == BaseSource::kSearched && h.base_distance) report.base_confidence = h.base_distance->confidence;
  report.computed_at = now;
  if (h.base_source == BaseSource::kGiven || h.base_source == BaseSource::kSearched)
    report.notices.push_back("base " + h.merge_base.substr(0, 12) + " was " + BaseSourceName(h.base_source) +
                             ", not a common ancestor: drift is measured from it (behind counts upstream's commits "
                             "since it)" +
                             (report.base_confidence == "low"
                                  ? "; the search's confidence is low: " + h.base_distance->confidence_reason
                                  : std::string()));
  FS_ASSIGN_OR_RETURN(auto repo, git::PairRepo::Open(pair.fork_mirror, pair.upstream_mirror, pair.refs));
  FS_RETURN_IF_ERROR(FillCounts(*repo, h, now, report));
  int64_t t0 = options.clock->MonotonicUs();
  PathTracker tracker(analysis);
  FS_RETURN_IF_ERROR(WalkUpstream(*repo, analysis, options, tracker, report));
  int64_t t1 = options.clock->MonotonicUs();
  FS_RETURN_IF_ERROR(PredictConflicts(*repo, analysis, tracker, report));
  int64_t t2 = options.clock->MonotonicUs();
  FS_RETURN_IF_ERROR(FindRedundantHunks(*repo, analysis, tracker, options, report));
  int64_t t3 = options.clock->MonotonicUs();
  report.risk = DriftRisk(report);
  base::Log(base::LogArea::kAnalyzer)
      ->debug(
          "drift fork={} behind={} walked={} touching={} conflicts={} redundant={} walk_us={} merge_us={} "
          "redundant_us={}",
          report.fork, report.behind, report.upstream_commits_scanned, report.upstream_commits_touching_patched.size(),
          report.predicted_conflicts.size(), report.redundant_hunks.size(), t1 - t0, t2 - t1, t3 - t2);
  return report;
}

}  // namespace forkscope::analyzer
