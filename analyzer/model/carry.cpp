#include "analyzer/model/carry.h"

#include <algorithm>
#include <array>
#include <utility>

namespace forkscope::analyzer {
namespace {

// One name table per enum: the name functions and their inverses read the same rows.
template <typename E, size_t N>
const char* NameIn(const std::array<std::pair<E, const char*>, N>& table, E value) {
  for (const auto& [v, name] : table)
    if (v == value) return name;
  return table[0].second;
}

template <typename E, size_t N>
std::optional<E> ValueIn(const std::array<std::pair<E, const char*>, N>& table, const std::string& name) {
  for (const auto& [v, n] : table)
    if (name == n) return v;
  return std::nullopt;
}

constexpr std::array<std::pair<CarryState, const char*>, 3> kStates = {
    {{CarryState::kClean, "clean"}, {CarryState::kConflict, "conflict"}, {CarryState::kUpToDate, "up_to_date"}}};
constexpr std::array<std::pair<CarryStrategy, const char*>, 2> kStrategies = {
    {{CarryStrategy::kRebase, "rebase"}, {CarryStrategy::kSquash, "squash"}}};
constexpr std::array<std::pair<CarryCommitState, const char*>, 4> kCommitStates = {
    {{CarryCommitState::kApplied, "applied"},
     {CarryCommitState::kDropped, "dropped"},
     {CarryCommitState::kConflict, "conflict"},
     {CarryCommitState::kNotReached, "not_reached"}}};
constexpr std::array<std::pair<ConflictKind, const char*>, 4> kKinds = {{{ConflictKind::kContent, "content"},
                                                                         {ConflictKind::kModifyDelete, "modify/delete"},
                                                                         {ConflictKind::kAddAdd, "add/add"},
                                                                         {ConflictKind::kRename, "rename"}}};
constexpr std::array<std::pair<PatchChange, const char*>, 3> kPatchChanges = {
    {{PatchChange::kSame, "same"}, {PatchChange::kChanged, "changed"}, {PatchChange::kDropped, "dropped"}}};

}  // namespace

const char* CarryStateName(CarryState state) { return NameIn(kStates, state); }
std::optional<CarryState> CarryStateFromName(const std::string& name) { return ValueIn(kStates, name); }
const char* CarryStrategyName(CarryStrategy strategy) { return NameIn(kStrategies, strategy); }
std::optional<CarryStrategy> CarryStrategyFromName(const std::string& name) { return ValueIn(kStrategies, name); }
const char* CarryCommitStateName(CarryCommitState state) { return NameIn(kCommitStates, state); }
std::optional<CarryCommitState> CarryCommitStateFromName(const std::string& name) {
  return ValueIn(kCommitStates, name);
}
const char* ConflictKindName(ConflictKind kind) { return NameIn(kKinds, kind); }
std::optional<ConflictKind> ConflictKindFromName(const std::string& name) { return ValueIn(kKinds, name); }
const char* PatchChangeName(PatchChange change) { return NameIn(kPatchChanges, change); }
std::optional<PatchChange> PatchChangeFromName(const std::string& name) { return ValueIn(kPatchChanges, name); }

std::string DeletedBy(const CarryConflict& c) {
  if (c.kind != ConflictKind::kModifyDelete) return "";
  if (c.fork_path.empty()) return "fork";
  return c.upstream_path.empty() ? "upstream" : "";
}

std::string ConflictKindText(ConflictKind kind, const std::string& deleted_by) {
  std::string out = ConflictKindName(kind);
  if (kind == ConflictKind::kModifyDelete && deleted_by == "fork") out += " (the fork deleted it)";
  if (kind == ConflictKind::kModifyDelete && deleted_by == "upstream") out += " (upstream deleted it)";
  return out;
}

namespace {

std::vector<DeletionGroup> GroupByDirectory(std::vector<std::string> paths) {
  std::sort(paths.begin(), paths.end());
  std::vector<DeletionGroup> groups;
  for (auto& p : paths) {
    const size_t slash = p.rfind('/');
    std::string dir = slash == std::string::npos ? "" : p.substr(0, slash + 1);
    if (groups.empty() || groups.back().directory != dir) groups.push_back({std::move(dir), {}});
    groups.back().paths.push_back(std::move(p));
  }
  std::stable_sort(groups.begin(), groups.end(),
                   [](const DeletionGroup& a, const DeletionGroup& b) { return a.paths.size() > b.paths.size(); });
  return groups;
}

}  // namespace

ConflictSummary SummarizeConflicts(const std::vector<CarryConflict>& conflicts) {
  ConflictSummary s;
  std::vector<std::string> by_fork, by_upstream;
  for (const auto& c : conflicts) {
    switch (c.kind) {
      case ConflictKind::kContent:
        ++s.content;
        break;
      case ConflictKind::kModifyDelete:
        ++s.modify_delete;
        break;
      case ConflictKind::kAddAdd:
        ++s.add_add;
        break;
      case ConflictKind::kRename:
        ++s.rename;
        break;
    }
    const std::string side = DeletedBy(c);
    if (side == "fork") by_fork.push_back(c.path);
    if (side == "upstream") by_upstream.push_back(c.path);
  }
  s.deleted_by_fork = static_cast<int>(by_fork.size());
  s.deleted_by_upstream = static_cast<int>(by_upstream.size());
  s.fork_deleted = GroupByDirectory(std::move(by_fork));
  s.upstream_deleted = GroupByDirectory(std::move(by_upstream));
  return s;
}

std::string DeletionDecision(const std::string& side, int files) {
  const std::string n = std::to_string(files) + (files == 1 ? " file" : " files");
  if (side == "fork")
    return "the fork deleted " + n + " upstream changed since the base: keep " + (files == 1 ? "it" : "them") +
           " deleted, or port the change";
  return "upstream deleted " + n + " the fork changed: drop the fork's change, or keep the file" +
         (files == 1 ? "" : "s") + " in the fork";
}

std::string CandidateRefName(const std::string& branch, const std::string& onto_sha) {
  return "refs/forkscope/candidates/" + branch + "/" + onto_sha.substr(0, 12);
}

}  // namespace forkscope::analyzer
