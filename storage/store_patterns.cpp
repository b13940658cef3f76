// Store: patterns across forks, read from the latest analysis of each registered fork. Not to be
// confused with pattern_store.cpp (mined patterns). The rest of Store is in store.cpp.
#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "storage/db.h"
#include "storage/store.h"
#include "storage/store_impl.h"

namespace forkscope::storage {

// ---------------------------------------------------------------------------------------------------
// Patterns across forks. Counts are hunk occurrences in each registered fork's latest analysis, so a
// summary's total equals the number of PatternOccurrences for that id. CROSS JOIN fixes the loop order
// (SQLite's planner hint): start from the forks, so the cost follows the latest analyses' size rather
// than every analysis ever stored.

Result<std::vector<PatternSummary>> Store::ListPatterns() {
  Impl& s = *impl_;
  Transaction snapshot(s.db, TransactionMode::kDeferred);
  FS_RETURN_IF_ERROR(snapshot.status());
  FS_ASSIGN_OR_RETURN(StatementLease stmt,
                      s.Lease("SELECT hp.pattern_id, p.layer, p.description, f.name, COUNT(*) FROM forks f"
                              " CROSS JOIN files fi ON fi.analysis_id = f.latest_analysis_id"
                              " CROSS JOIN hunks h ON h.file_id = fi.id"
                              " CROSS JOIN hunk_patterns hp ON hp.hunk_id = h.id"
                              " JOIN patterns p ON p.id = hp.pattern_id"
                              " GROUP BY hp.pattern_id, f.name"));
  std::map<std::string, PatternSummary> by_id;
  while (true) {
    FS_ASSIGN_OR_RETURN(bool row, stmt->Step());
    if (!row) break;
    PatternSummary& summary = by_id[stmt->ColumnText(0)];
    summary.id = stmt->ColumnText(0);
    summary.layer = stmt->ColumnText(1);
    summary.description = stmt->ColumnText(2);
    summary.total += stmt->ColumnInt(4);
    summary.per_fork.emplace_back(stmt->ColumnText(3), stmt->ColumnInt(4));
  }
  std::vector<PatternSummary> out;
  out.reserve(by_id.size());
  auto by_count = [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  };
  for (auto& [id, summary] : by_id) {
    std::sort(summary.per_fork.begin(), summary.per_fork.end(), by_count);
    out.push_back(std::move(summary));
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.total > b.total; });
  return out;
}

Result<std::vector<PatternOccurrence>> Store::PatternOccurrences(const std::string& pattern_id) {
  Impl& s = *impl_;
  FS_ASSIGN_OR_RETURN(StatementLease stmt,
                      s.Lease("SELECT f.name, fi.analysis_id, fi.path, h.idx, h.new_start, h.layer FROM forks f"
                              " CROSS JOIN files fi ON fi.analysis_id = f.latest_analysis_id"
                              " CROSS JOIN hunks h ON h.file_id = fi.id"
                              " CROSS JOIN hunk_patterns hp ON hp.hunk_id = h.id"
                              " WHERE hp.pattern_id = ?1"
                              " ORDER BY f.name, fi.idx, h.idx, hp.idx"));
  stmt->Bind(1, pattern_id);
  std::vector<PatternOccurrence> out;
  while (true) {
    FS_ASSIGN_OR_RETURN(bool row, stmt->Step());
    if (!row) break;
    PatternOccurrence o;
    o.pattern_id = pattern_id;
    o.fork_name = stmt->ColumnText(0);
    o.analysis_id = stmt->ColumnInt64(1);
    o.path = stmt->ColumnText(2);
    o.hunk_index = stmt->ColumnInt(3);
    o.new_start = stmt->ColumnInt(4);
    o.layer = stmt->ColumnText(5);
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace forkscope::storage
