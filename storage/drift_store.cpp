// DriftStore: the drift history (its tables: schema version 3, storage/migrations_areas.cpp). Reports
// are written whole as the drift JSON (analyzer/drift_json.h) beside the scalar columns the listings
// sort and summarise by.
#include "storage/drift_store.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "analyzer/model/drift_json.h"
#include "storage/db.h"

namespace forkscope::storage {

namespace {

using analyzer::DriftReport;
using analyzer::DriftSummary;

int64_t Centi(double x) { return std::llround(x * 100.0); }
double FromCenti(int64_t c) { return static_cast<double>(c) / 100.0; }

Result<DriftReport> ReportFromColumn(const Statement& stmt, int column) {
  auto doc = nlohmann::json::parse(stmt.ColumnText(column), nullptr, false);
  if (doc.is_discarded()) return Internal("drift_reports.report holds malformed JSON");
  return analyzer::DriftFromJson(doc);
}

const char* OrderBy(DriftSort sort) {
  switch (sort) {
    case DriftSort::kRisk:
      return "d.risk_centi DESC, f.name";
    case DriftSort::kBehind:
      return "d.behind DESC, f.name";
    case DriftSort::kAge:
      return "d.age_centi DESC, f.name";
    case DriftSort::kName:
      return "f.name";
  }
  return "f.name";
}

}  // namespace

std::optional<DriftSort> DriftSortFromName(const std::string& name) {
  if (name == "risk") return DriftSort::kRisk;
  if (name == "behind") return DriftSort::kBehind;
  if (name == "age") return DriftSort::kAge;
  if (name == "name") return DriftSort::kName;
  return std::nullopt;
}

DriftStore::DriftStore(Database& db, int history_per_fork)
    : db_(db), history_per_fork_(history_per_fork < 1 ? 1 : history_per_fork) {}

Result<int64_t> DriftStore::Save(int64_t fork_id, const DriftReport& r) {
  Transaction txn(db_);
  FS_RETURN_IF_ERROR(txn.status());
  FS_ASSIGN_OR_RETURN(Statement insert,
                      db_.Prepare("INSERT INTO drift_reports (fork_id, computed_at, fork_sha, upstream_sha, "
                                  "merge_base, merge_base_time, ahead, behind, age_centi, touching, conflicts, "
                                  "redundant, risk_centi, report) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)"));
  insert.Bind(1, fork_id)
      .Bind(2, r.computed_at)
      .Bind(3, r.fork_sha)
      .Bind(4, r.upstream_sha)
      .Bind(5, r.merge_base)
      .Bind(6, r.merge_base_time)
      .Bind(7, r.ahead)
      .Bind(8, r.behind)
      .Bind(9, Centi(r.merge_base_age_days))
      .Bind(10, static_cast<int64_t>(r.upstream_commits_touching_patched.size()))
      .Bind(11, static_cast<int64_t>(r.predicted_conflicts.size()))
      .Bind(12, static_cast<int64_t>(r.redundant_hunks.size()))
      .Bind(13, Centi(r.risk))
      .Bind(14, analyzer::DriftToJson(r).dump());
  FS_RETURN_IF_ERROR(insert.Run());
  int64_t id = db_.LastInsertRowid();
  FS_ASSIGN_OR_RETURN(Statement prune,
                      db_.Prepare("DELETE FROM drift_reports WHERE fork_id = ?1 AND id <= (SELECT id FROM "
                                  "drift_reports WHERE fork_id = ?1 ORDER BY id DESC LIMIT 1 OFFSET ?2)"));
  prune.Bind(1, fork_id).Bind(2, history_per_fork_);
  FS_RETURN_IF_ERROR(prune.Run());
  FS_RETURN_IF_ERROR(txn.Commit());
  return id;
}

Result<std::optional<DriftReport>> DriftStore::Latest(int64_t fork_id) {
  FS_ASSIGN_OR_RETURN(Statement stmt, db_.Prepare("SELECT f.name, d.report FROM drift_reports d JOIN forks f ON "
                                                  "f.id = d.fork_id WHERE d.fork_id = ? ORDER BY d.id DESC LIMIT 1"));
  stmt.Bind(1, fork_id);
  FS_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return std::optional<DriftReport>();
  FS_ASSIGN_OR_RETURN(DriftReport report, ReportFromColumn(stmt, 1));
  report.fork = stmt.ColumnText(0);
  stmt.Reset();
  return std::optional<DriftReport>(std::move(report));
}

Result<std::vector<DriftSummary>> DriftStore::History(int64_t fork_id, int limit) {
  FS_ASSIGN_OR_RETURN(Statement stmt,
                      db_.Prepare("SELECT computed_at, fork_sha, upstream_sha, ahead, behind, age_centi, risk_centi "
                                  "FROM drift_reports WHERE fork_id = ? ORDER BY id DESC LIMIT ?"));
  stmt.Bind(1, fork_id).Bind(2, limit);
  std::vector<DriftSummary> out;
  while (true) {
    FS_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    out.push_back({stmt.ColumnInt64(0), stmt.ColumnText(1), stmt.ColumnText(2), stmt.ColumnInt(3), stmt.ColumnInt(4),
                   FromCenti(stmt.ColumnInt64(5)), FromCenti(stmt.ColumnInt64(6))});
  }
  return out;
}

Result<std::map<int64_t, double>> DriftStore::LatestAges() {
  // One search of drift_reports_fork per fork. Reports state the age to 0.01 day: read in hundredths.
  FS_ASSIGN_OR_RETURN(Statement stmt,
                      db_.Prepare("SELECT f.id, (SELECT CAST(round(json_extract(d.report, '$.merge_base_age_days') * "
                                  "100) AS INTEGER) FROM drift_reports d WHERE d.fork_id = f.id ORDER BY d.id DESC "
                                  "LIMIT 1) FROM forks f"));
  std::map<int64_t, double> out;
  while (true) {
    FS_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) return out;
    if (!stmt.IsNull(1)) out.emplace(stmt.ColumnInt64(0), static_cast<double>(stmt.ColumnInt64(1)) / 100.0);
  }
}

Result<std::vector<DriftReport>> DriftStore::LatestOfEachFork(DriftSort sort) {
  FS_ASSIGN_OR_RETURN(Statement stmt,
                      db_.Prepare(std::string("SELECT f.name, d.report FROM drift_reports d JOIN forks f ON f.id = "
                                              "d.fork_id WHERE d.id = (SELECT MAX(id) FROM drift_reports WHERE "
                                              "fork_id = d.fork_id) ORDER BY ") +
                                  OrderBy(sort)));
  std::vector<DriftReport> out;
  while (true) {
    FS_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    auto report = ReportFromColumn(stmt, 1);
    if (!report.ok()) {
      stmt.Reset();
      return report.status();
    }
    report->fork = stmt.ColumnText(0);
    out.push_back(std::move(*report));
  }
  return out;
}

}  // namespace forkscope::storage
