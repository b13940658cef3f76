// The value model of one carry: a fork's commits replayed onto a new upstream commit in memory, with
// the candidate commit it made or the conflict that stopped it. Plain structs, copied freely between
// threads; produced by analyzer/git (the replay) and analyzer/carry (layers, upstream commits), rendered
// by analyzer/render; its JSON form (docs/carry.md) is carry_json.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/model/model.h"

namespace forkscope::analyzer {

// clean: a candidate commit was made; conflict: a fork commit did not apply; up_to_date: the fork
// already sits on the target (nothing to carry).
enum class CarryState { kClean, kConflict, kUpToDate };
const char* CarryStateName(CarryState state);
std::optional<CarryState> CarryStateFromName(const std::string& name);

// rebase: each non-merge fork commit in turn (as `git rebase`); squash: the whole fork diff as one.
enum class CarryStrategy { kRebase, kSquash };
const char* CarryStrategyName(CarryStrategy strategy);
std::optional<CarryStrategy> CarryStrategyFromName(const std::string& name);

// What happened to one fork commit: applied (a new commit), dropped (its change is already in the
// target, so the replay left the tree unchanged), conflict (stopped here), not_reached (after the stop).
enum class CarryCommitState { kApplied, kDropped, kConflict, kNotReached };
const char* CarryCommitStateName(CarryCommitState state);
std::optional<CarryCommitState> CarryCommitStateFromName(const std::string& name);

enum class ConflictKind { kContent, kModifyDelete, kAddAdd, kRename };
const char* ConflictKindName(ConflictKind kind);  // "content", "modify/delete", "add/add", "rename"
std::optional<ConflictKind> ConflictKindFromName(const std::string& name);

// Whether a replayed commit's patch is the fork commit's patch (equal patch ids), another one (it now
// applies elsewhere: an upstream rename, merged context), or gone (dropped).
enum class PatchChange { kSame, kChanged, kDropped };
const char* PatchChangeName(PatchChange change);
std::optional<PatchChange> PatchChangeFromName(const std::string& name);

struct CarryCommit {
  std::string fork_sha;
  std::string subject;
  CarryCommitState state = CarryCommitState::kNotReached;
  std::string candidate_sha;  // the replayed commit; "" unless applied
};

// One conflicting region of a file: the lines of each side where both changed the same base lines.
// base_start is the 1-based base line the region starts at; for an insertion (no base lines) the base
// line the sides inserted before.
struct ConflictRegion {
  int base_start = 0;
  std::vector<std::string> base_lines;
  std::vector<std::string> upstream_lines;
  std::vector<std::string> fork_lines;
  bool truncated = false;  // a side had more lines than the cap; the rest were left out
};

struct UpstreamCommitRef {
  std::string sha;
  std::string subject;
};

struct CarryConflict {
  std::string path;       // under the fork's name
  std::string base_path;  // the file at each side of the three-way merge ("" where absent)
  std::string upstream_path;
  std::string fork_path;
  Layer layer = Layer::kOther;
  ConflictKind kind = ConflictKind::kContent;
  std::string fork_commit;                          // the fork commit that did not apply (the fork head for squash)
  std::vector<UpstreamCommitRef> upstream_commits;  // since the base, touching the path; newest first
  std::vector<ConflictRegion> regions;
  bool binary = false;  // no line regions for binary files
};

struct RangeDiffEntry {
  std::string fork_sha;
  std::string candidate_sha;  // "" when dropped
  std::string subject;
  PatchChange patch = PatchChange::kSame;
};

struct CarryResult {
  std::string fork;  // the fork's location (URL or path)
  std::string branch;
  std::string upstream;
  std::string upstream_branch;
  std::string fork_sha;
  std::string onto;  // the target commit (full sha)
  std::string base;  // where the fork's commits start (merge-base or the given base)
  BaseSource base_source = BaseSource::kUnknown;
  CarryStrategy strategy = CarryStrategy::kRebase;
  CarryState state = CarryState::kClean;
  std::string candidate_sha;  // "" unless clean
  std::string candidate_ref;  // refs/forkscope/candidates/<branch>/<onto-short12>; "" unless clean
  std::vector<CarryCommit> commits;
  std::vector<CarryConflict> conflicts;
  std::vector<RangeDiffEntry> range_diff;
  std::vector<std::string> notices;
  int64_t duration_ms = 0;
};

// For a modify/delete conflict, the side that deleted the file: "fork" or "upstream" ("" otherwise).
std::string DeletedBy(const CarryConflict& conflict);
// "modify/delete (the fork deleted it)", "modify/delete (upstream deleted it)", else the kind's name.
std::string ConflictKindText(ConflictKind kind, const std::string& deleted_by);

// Modify/delete conflicts of one directory (its path with a trailing '/', "" for the root).
struct DeletionGroup {
  std::string directory;
  std::vector<std::string> paths;  // sorted
};

// A carry's conflicts counted by kind, the modify/delete ones grouped by directory and by the side that
// deleted the files (largest group first): each group is one decision, not one file at a time.
struct ConflictSummary {
  int content = 0;
  int modify_delete = 0;
  int add_add = 0;
  int rename = 0;
  int deleted_by_fork = 0;  // files in deleted_by_fork's groups
  int deleted_by_upstream = 0;
  std::vector<DeletionGroup> fork_deleted;      // the fork deleted them, upstream changed them since the base
  std::vector<DeletionGroup> upstream_deleted;  // upstream deleted them, the fork changed them
};
ConflictSummary SummarizeConflicts(const std::vector<CarryConflict>& conflicts);
// The decision a group of deletions asks for: "the fork deleted 38 files upstream changed since the base:
// keep them deleted, or port the change" (side "fork"), or the upstream side's.
std::string DeletionDecision(const std::string& side, int files);

// The ref a clean carry of branch onto the target writes in the fork's mirror.
std::string CandidateRefName(const std::string& branch, const std::string& onto_sha);

}  // namespace forkscope::analyzer
