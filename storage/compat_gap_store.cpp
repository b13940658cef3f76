#include "storage/compat_gap_store.h"

#include <algorithm>
#include <set>

#include "storage/db.h"
#include "storage/pattern_sql.h"

namespace forkscope::storage {

using internal::ForEachRow;

namespace {

constexpr const char* kNoRemovalRule = "compat-gap-no-removal";

// The annotatable fields of an annotation or a record, by API name.
std::vector<std::pair<const char*, std::string*>> Fields(analyzer::GapAnnotation& a) {
  return {{"scope", &a.scope},
          {"removal", &a.removal},
          {"issue", &a.issue},
          {"reproduction", &a.reproduction},
          {"origin", &a.origin},
          {"forwarded", &a.forwarded},
          {"applied_upstream", &a.applied_upstream}};
}

std::vector<std::pair<const char*, std::string*>> Fields(CompatGapRecord& r) {
  return {{"scope", &r.scope},
          {"removal", &r.removal},
          {"issue", &r.issue},
          {"reproduction", &r.reproduction},
          {"origin", &r.origin},
          {"forwarded", &r.forwarded},
          {"applied_upstream", &r.applied_upstream}};
}

bool IsField(const std::string& name) {
  return std::any_of(std::begin(kGapAnnotationFields), std::end(kGapAnnotationFields),
                     [&](const char* f) { return name == f; });
}

Result<std::map<std::string, analyzer::GapAnnotation>> LoadAnnotations(Database& db, const std::string& fork) {
  FS_ASSIGN_OR_RETURN(Statement stmt, db.Prepare("SELECT id, scope, removal, issue, reproduction, origin, forwarded,"
                                                 " applied_upstream FROM compat_gap_annotations"
                                                 " WHERE ?1 = '' OR fork = ?1"));
  stmt.Bind(1, fork);
  std::map<std::string, analyzer::GapAnnotation> out;
  FS_RETURN_IF_ERROR(ForEachRow(stmt, [&](Statement& r) {
    analyzer::GapAnnotation a;
    a.id = r.ColumnText(0);
    int column = 1;
    for (auto& [name, field] : Fields(a)) *field = r.ColumnText(column++);
    out[a.id] = std::move(a);
    return Status::Ok();
  }));
  return out;
}

CompatGapRecord RecordFromRow(Statement& r) {
  CompatGapRecord g;
  g.fork = r.ColumnText(0);
  g.analysis_id = r.ColumnInt64(1);
  g.path = r.ColumnText(2);
  g.line = r.ColumnInt(3);
  g.lines = {g.line};
  g.api = r.ColumnText(4);
  g.bridge = r.ColumnText(5);
  int column = 6;
  for (auto& [name, field] : Fields(g)) *field = r.ColumnText(column++);
  analyzer::CompatGap gap;
  gap.api = g.api;
  gap.bridge = g.bridge;
  g.api_key = analyzer::CompatGapApiKey(gap);
  g.id = analyzer::CompatGapId(g.fork, g.path, g.api_key);
  return g;
}

void MergeAnnotation(const analyzer::GapAnnotation& annotation, CompatGapRecord& record) {
  analyzer::GapAnnotation a = annotation;
  auto stated = Fields(a);
  auto fields = Fields(record);
  for (size_t i = 0; i < fields.size(); ++i) {
    if (stated[i].second->empty()) continue;
    *fields[i].second = *stated[i].second;
    record.annotated.push_back(fields[i].first);
  }
}

bool Matches(const CompatGapFilter& filter, const CompatGapRecord& r) {
  if (!filter.fork.empty() && r.fork != filter.fork) return false;
  return filter.api.empty() || r.api.find(filter.api) != std::string::npos ||
         r.api_key.find(filter.api) != std::string::npos;
}

}  // namespace

CompatGapStore::CompatGapStore(Store& store, base::Clock& clock) : db_(store.db()), clock_(clock) {}

Result<std::vector<CompatGapRecord>> CompatGapStore::List(const CompatGapFilter& filter) {
  Transaction snapshot(db_, TransactionMode::kDeferred);
  FS_RETURN_IF_ERROR(snapshot.status());
  FS_ASSIGN_OR_RETURN(auto annotations, LoadAnnotations(db_, ""));
  FS_ASSIGN_OR_RETURN(
      Statement stmt,
      db_.Prepare(std::string(internal::kCurrentAnalyses) +
                  "SELECT c.fork, c.analysis_id, g.path, g.line, g.api, g.bridge, g.scope, g.removal,"
                  " g.issue, g.reproduction, g.origin, g.forwarded, g.applied_upstream FROM current c"
                  " JOIN compat_gaps g ON g.analysis_id = c.analysis_id ORDER BY c.fork, g.path, g.line"));
  std::vector<CompatGapRecord> out;
  std::map<std::string, size_t> index;
  FS_RETURN_IF_ERROR(ForEachRow(stmt, [&](Statement& row) {
    CompatGapRecord g = RecordFromRow(row);
    if (!Matches(filter, g)) return Status::Ok();
    auto [it, inserted] = index.emplace(g.id, out.size());
    if (inserted) {
      out.push_back(std::move(g));
      return Status::Ok();
    }
    CompatGapRecord& first = out[it->second];  // another call site of the same API in the same file
    first.lines.push_back(g.line);
    auto have = Fields(first);
    auto more = Fields(g);
    for (size_t i = 0; i < have.size(); ++i)
      if (have[i].second->empty()) *have[i].second = *more[i].second;
    return Status::Ok();
  }));
  for (auto& g : out) {
    if (auto a = annotations.find(g.id); a != annotations.end()) MergeAnnotation(a->second, g);
    if (g.removal.empty()) g.violations.push_back(kNoRemovalRule);
  }
  return out;
}

std::vector<CompatGapRank> CompatGapStore::Rank(const std::vector<CompatGapRecord>& records) {
  std::map<std::string, CompatGapRank> by_key;
  std::map<std::string, std::map<std::string, int>> spellings;
  for (const auto& r : records) {
    CompatGapRank& rank = by_key[r.api_key];
    rank.api_key = r.api_key;
    rank.occurrences += static_cast<int>(r.lines.size());
    rank.forks.push_back(r.fork);
    if (!r.bridge.empty()) rank.bridges.push_back(r.bridge);
    if (!r.issue.empty()) rank.issues.push_back(r.issue);
    spellings[r.api_key][r.api.empty() ? r.api_key : r.api] += 1;
  }
  std::vector<CompatGapRank> out;
  for (auto& [key, rank] : by_key) {
    for (auto* list : {&rank.forks, &rank.bridges, &rank.issues}) {
      std::sort(list->begin(), list->end());
      list->erase(std::unique(list->begin(), list->end()), list->end());
    }
    const auto& s = spellings[key];
    rank.api =
        std::max_element(s.begin(), s.end(), [](const auto& a, const auto& b) { return a.second < b.second; })->first;
    out.push_back(std::move(rank));
  }
  std::sort(out.begin(), out.end(), [](const CompatGapRank& a, const CompatGapRank& b) {
    if (a.forks.size() != b.forks.size()) return a.forks.size() > b.forks.size();
    if (a.occurrences != b.occurrences) return a.occurrences > b.occurrences;
    return a.api_key < b.api_key;
  });
  return out;
}

std::vector<analyzer::BridgedApi> CompatGapStore::Bridged(const std::vector<CompatGapRank>& ranking) {
  std::vector<analyzer::BridgedApi> out;
  for (const auto& r : ranking)
    if (r.api_key != "unknown") out.push_back({r.api_key, r.api, r.forks, r.occurrences, r.bridges, r.issues});
  return out;
}

Result<std::vector<analyzer::GapAnnotation>> CompatGapStore::Annotations(const std::string& fork) {
  FS_ASSIGN_OR_RETURN(auto by_id, LoadAnnotations(db_, fork));
  std::vector<analyzer::GapAnnotation> out;
  for (auto& [id, a] : by_id) out.push_back(std::move(a));
  return out;
}

Result<CompatGapRecord> CompatGapStore::Annotate(const std::string& id,
                                                 const std::map<std::string, std::string>& fields) {
  for (const auto& [name, value] : fields)
    if (!IsField(name)) return InvalidArgument("unknown compat-gap field '" + name + "'");
  FS_ASSIGN_OR_RETURN(std::vector<CompatGapRecord> all, List({}));
  auto gap = std::find_if(all.begin(), all.end(), [&](const CompatGapRecord& r) { return r.id == id; });
  if (gap == all.end()) return NotFound("no compat gap '" + id + "' in the current analyses");
  {
    Transaction txn(db_);
    FS_RETURN_IF_ERROR(txn.status());
    FS_ASSIGN_OR_RETURN(Statement upsert,
                        db_.Prepare("INSERT INTO compat_gap_annotations (id, fork, path, api, updated_at)"
                                    " VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT(id) DO UPDATE SET fork = ?2, path = ?3,"
                                    " api = ?4, updated_at = ?5"));
    upsert.Bind(1, id).Bind(2, gap->fork).Bind(3, gap->path).Bind(4, gap->api).Bind(5, clock_.NowS());
    FS_RETURN_IF_ERROR(upsert.Run());
    for (const auto& [name, value] : fields) {
      // name is one of kGapAnnotationFields (checked above), so it is safe to splice in.
      FS_ASSIGN_OR_RETURN(Statement set,
                          db_.Prepare("UPDATE compat_gap_annotations SET " + name + " = ?2 WHERE id = ?1"));
      set.Bind(1, id).Bind(2, value);
      FS_RETURN_IF_ERROR(set.Run());
    }
    FS_RETURN_IF_ERROR(txn.Commit());
  }
  FS_ASSIGN_OR_RETURN(std::vector<CompatGapRecord> after, List({"", gap->fork}));
  for (auto& r : after)
    if (r.id == id) return std::move(r);
  return Internal("compat gap '" + id + "' vanished while it was annotated");
}

Result<std::string> CompatGapStore::ForkLabel(std::optional<int64_t> fork_id, const std::string& fork_url) {
  FS_ASSIGN_OR_RETURN(Statement stmt, db_.Prepare("SELECT name FROM forks WHERE id = ?1 OR (?1 IS NULL AND"
                                                  " fork_url = ?2) ORDER BY id LIMIT 1"));
  stmt.Bind(1, fork_id).Bind(2, fork_url);
  FS_ASSIGN_OR_RETURN(bool row, stmt.Step());
  return row ? stmt.ColumnText(0) : fork_url;
}

}  // namespace forkscope::storage
