#include "analyzer/model/carry_json.h"

#include <limits>

#include "analyzer/model/json_read.h"

namespace forkscope::analyzer {
namespace {

using json_read::Array;
using json_read::Bad;
using json_read::Read;
using json_read::ReadEnum;
using json_read::ReadStrings;
using nlohmann::json;

// "" is written as null where docs/carry.md says "null unless ...".
json StringOrNull(const std::string& sha) { return sha.empty() ? json(nullptr) : json(sha); }

json RegionToJson(const ConflictRegion& r) {
  return json{{"base_start", r.base_start},
              {"base_lines", r.base_lines},
              {"upstream_lines", r.upstream_lines},
              {"fork_lines", r.fork_lines},
              {"truncated", r.truncated}};
}

json ConflictToJson(const CarryConflict& c) {
  json upstream = json::array(), regions = json::array();
  for (const auto& u : c.upstream_commits) upstream.push_back({{"sha", u.sha}, {"subject", u.subject}});
  for (const auto& r : c.regions) regions.push_back(RegionToJson(r));
  return json{{"path", c.path},
              {"layer", LayerName(c.layer)},
              {"kind", ConflictKindName(c.kind)},
              {"fork_commit", c.fork_commit},
              {"base_path", StringOrNull(c.base_path)},
              {"upstream_path", StringOrNull(c.upstream_path)},
              {"fork_path", StringOrNull(c.fork_path)},
              {"deleted_by", StringOrNull(DeletedBy(c))},
              {"binary", c.binary},
              {"upstream_commits", upstream},
              {"regions", regions}};
}

// Derived from the conflicts (not read back): counts by kind and the modify/delete groups.
json SummaryToJson(const std::vector<CarryConflict>& conflicts) {
  const ConflictSummary s = SummarizeConflicts(conflicts);
  auto groups = [](const std::vector<DeletionGroup>& gs) {
    json out = json::array();
    for (const auto& g : gs) out.push_back({{"directory", g.directory}, {"files", g.paths.size()}, {"paths", g.paths}});
    return out;
  };
  json decisions = json::array();
  if (s.deleted_by_fork > 0) decisions.push_back(DeletionDecision("fork", s.deleted_by_fork));
  if (s.deleted_by_upstream > 0) decisions.push_back(DeletionDecision("upstream", s.deleted_by_upstream));
  return json{{"content", s.content},
              {"modify_delete", s.modify_delete},
              {"add_add", s.add_add},
              {"rename", s.rename},
              {"fork_deleted", groups(s.fork_deleted)},
              {"upstream_deleted", groups(s.upstream_deleted)},
              {"decisions", decisions}};
}

// --- reading: every key CarryToJson writes is required (json_read.h; the derived conflict_summary and
// deleted_by are not read) ---

Status ReadRegion(const json& e, ConflictRegion& r) {
  int64_t start = 0;
  FS_RETURN_IF_ERROR(Read(e, "base_start", start));
  if (start < 0 || start > std::numeric_limits<int>::max()) return Bad("base_start", "a line number");
  r.base_start = static_cast<int>(start);
  FS_RETURN_IF_ERROR(ReadStrings(e, "base_lines", r.base_lines));
  FS_RETURN_IF_ERROR(ReadStrings(e, "upstream_lines", r.upstream_lines));
  FS_RETURN_IF_ERROR(ReadStrings(e, "fork_lines", r.fork_lines));
  return Read(e, "truncated", r.truncated);
}

Status ReadConflict(const json& e, CarryConflict& c) {
  FS_RETURN_IF_ERROR(Read(e, "path", c.path));
  FS_RETURN_IF_ERROR(ReadEnum(e, "layer", &LayerFromName, c.layer, "a layer"));
  FS_RETURN_IF_ERROR(ReadEnum(e, "kind", &ConflictKindFromName, c.kind, "content, modify/delete, add/add or rename"));
  FS_RETURN_IF_ERROR(Read(e, "fork_commit", c.fork_commit));
  FS_RETURN_IF_ERROR(Read(e, "base_path", c.base_path, true));
  FS_RETURN_IF_ERROR(Read(e, "upstream_path", c.upstream_path, true));
  FS_RETURN_IF_ERROR(Read(e, "fork_path", c.fork_path, true));
  FS_RETURN_IF_ERROR(Read(e, "binary", c.binary));
  FS_ASSIGN_OR_RETURN(const json* upstream, Array(e, "upstream_commits"));
  for (const auto& u : *upstream) {
    UpstreamCommitRef ref;
    FS_RETURN_IF_ERROR(Read(u, "sha", ref.sha));
    FS_RETURN_IF_ERROR(Read(u, "subject", ref.subject));
    c.upstream_commits.push_back(std::move(ref));
  }
  FS_ASSIGN_OR_RETURN(const json* regions, Array(e, "regions"));
  for (const auto& r : *regions) {
    ConflictRegion region;
    FS_RETURN_IF_ERROR(ReadRegion(r, region));
    c.regions.push_back(std::move(region));
  }
  return Status::Ok();
}

Status ReadLists(const json& doc, CarryResult& r) {
  FS_ASSIGN_OR_RETURN(const json* commits, Array(doc, "commits"));
  for (const auto& e : *commits) {
    CarryCommit c;
    FS_RETURN_IF_ERROR(Read(e, "fork_sha", c.fork_sha));
    FS_RETURN_IF_ERROR(Read(e, "subject", c.subject));
    FS_RETURN_IF_ERROR(
        ReadEnum(e, "state", &CarryCommitStateFromName, c.state, "applied, dropped, conflict or not_reached"));
    FS_RETURN_IF_ERROR(Read(e, "candidate_sha", c.candidate_sha, true));
    r.commits.push_back(std::move(c));
  }
  FS_ASSIGN_OR_RETURN(const json* conflicts, Array(doc, "conflicts"));
  for (const auto& e : *conflicts) {
    CarryConflict c;
    FS_RETURN_IF_ERROR(ReadConflict(e, c));
    r.conflicts.push_back(std::move(c));
  }
  FS_ASSIGN_OR_RETURN(const json* range, Array(doc, "range_diff"));
  for (const auto& e : *range) {
    RangeDiffEntry d;
    FS_RETURN_IF_ERROR(Read(e, "fork_sha", d.fork_sha));
    FS_RETURN_IF_ERROR(Read(e, "candidate_sha", d.candidate_sha, true));
    FS_RETURN_IF_ERROR(Read(e, "subject", d.subject));
    FS_RETURN_IF_ERROR(ReadEnum(e, "patch", &PatchChangeFromName, d.patch, "same, changed or dropped"));
    r.range_diff.push_back(std::move(d));
  }
  return ReadStrings(doc, "notices", r.notices);
}

Status ReadResult(const json& doc, CarryResult& r) {
  FS_RETURN_IF_ERROR(ReadEnum(doc, "state", &CarryStateFromName, r.state, "clean, conflict or up_to_date"));
  FS_RETURN_IF_ERROR(Read(doc, "fork", r.fork));
  FS_RETURN_IF_ERROR(Read(doc, "branch", r.branch));
  FS_RETURN_IF_ERROR(Read(doc, "upstream", r.upstream));
  FS_RETURN_IF_ERROR(Read(doc, "upstream_branch", r.upstream_branch));
  FS_RETURN_IF_ERROR(Read(doc, "fork_sha", r.fork_sha));
  FS_RETURN_IF_ERROR(Read(doc, "onto", r.onto));
  FS_RETURN_IF_ERROR(Read(doc, "base", r.base));
  FS_RETURN_IF_ERROR(ReadEnum(doc, "base_source", &BaseSourceFromName, r.base_source, "merge-base, given or searched"));
  FS_RETURN_IF_ERROR(ReadEnum(doc, "strategy", &CarryStrategyFromName, r.strategy, "rebase or squash"));
  FS_RETURN_IF_ERROR(Read(doc, "candidate_sha", r.candidate_sha, true));
  FS_RETURN_IF_ERROR(Read(doc, "candidate_ref", r.candidate_ref, true));
  FS_RETURN_IF_ERROR(Read(doc, "duration_ms", r.duration_ms));
  return ReadLists(doc, r);
}

}  // namespace

nlohmann::json CarryToJson(const CarryResult& r) {
  json commits = json::array(), conflicts = json::array(), range = json::array();
  for (const auto& c : r.commits)
    commits.push_back({{"fork_sha", c.fork_sha},
                       {"subject", c.subject},
                       {"state", CarryCommitStateName(c.state)},
                       {"candidate_sha", StringOrNull(c.candidate_sha)}});
  for (const auto& c : r.conflicts) conflicts.push_back(ConflictToJson(c));
  for (const auto& d : r.range_diff)
    range.push_back({{"fork_sha", d.fork_sha},
                     {"candidate_sha", StringOrNull(d.candidate_sha)},
                     {"subject", d.subject},
                     {"patch", PatchChangeName(d.patch)}});
  return json{{"state", CarryStateName(r.state)},
              {"fork", r.fork},
              {"branch", r.branch},
              {"upstream", r.upstream},
              {"upstream_branch", r.upstream_branch},
              {"fork_sha", r.fork_sha},
              {"onto", r.onto},
              {"base", r.base},
              {"base_source", BaseSourceName(r.base_source)},
              {"strategy", CarryStrategyName(r.strategy)},
              {"candidate_sha", StringOrNull(r.candidate_sha)},
              {"candidate_ref", StringOrNull(r.candidate_ref)},
              {"commits", commits},
              {"conflicts", conflicts},
              {"conflict_summary", SummaryToJson(r.conflicts)},
              {"range_diff", range},
              {"notices", r.notices},
              {"duration_ms", r.duration_ms}};
}

Result<CarryResult> CarryFromJson(const nlohmann::json& doc) {
  if (!doc.is_object()) return InvalidArgument("carry json: the document must be an object");
  CarryResult r;
  if (Status st = ReadResult(doc, r); !st.ok()) return InvalidArgument("carry json: " + st.message());
  return r;
}

}  // namespace forkscope::analyzer
