#include "analyzer/model/carry.h"

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
constexpr std::array<std::pair<ConflictKind, const char*>, 4> kKinds = {
    {{ConflictKind::kContent, "content"},
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

std::string CandidateRefName(const std::string& branch, const std::string& onto_sha) {
  return "refs/forkscope/candidates/" + branch + "/" + onto_sha.substr(0, 12);
}

}  // namespace forkscope::analyzer
