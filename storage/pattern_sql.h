// Internal to storage/: SQL shared by the pattern, compat-gap and plan stores (not installed).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analyzer/model/model.h"
#include "storage/db.h"

namespace forkscope::storage::internal {

// A WITH clause defining current(fork, analysis_id): the latest analysis of every registered fork,
// and for forks only analysed from the command line (no registered fork has their URL) the newest
// analysis of each fork URL, named by that URL. See the v6 schema comment.
inline constexpr const char* kCurrentAnalyses =
    "WITH current(fork, analysis_id) AS ("
    " SELECT f.name, f.latest_analysis_id FROM forks f WHERE f.latest_analysis_id IS NOT NULL"
    " UNION ALL"
    " SELECT a.fork_url, MAX(a.id) FROM analyses a WHERE a.fork_id IS NULL"
    "   AND a.fork_url NOT IN (SELECT fork_url FROM forks) GROUP BY a.fork_url) ";

// hunks.lines (origin character + text per line, '\n' between lines) back to diff lines; line
// numbers are counted from the given starts.
std::vector<analyzer::DiffLine> DecodeHunkLines(std::string_view text, int old_start, int new_start);

// Steps stmt to the end, calling row(stmt) for each row; returns the first error.
template <typename Fn>
Status ForEachRow(Statement& stmt, Fn row) {
  while (true) {
    FS_ASSIGN_OR_RETURN(bool has_row, stmt.Step());
    if (!has_row) return Status::Ok();
    FS_RETURN_IF_ERROR(row(stmt));
  }
}

}  // namespace forkscope::storage::internal
