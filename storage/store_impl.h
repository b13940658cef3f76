// Private to storage/ (not installed): Store::Impl, shared by the files that implement Store
// (store.cpp, store_analysis_write.cpp, store_analysis_read.cpp, store_patterns.cpp), with the
// statement lease, the row-id bookkeeping types and the JSON helpers more than one of them needs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "analyzer/model/model.h"
#include "base/status.h"
#include "storage/db.h"
#include "storage/store.h"

namespace forkscope::storage {

// A cached statement lent for one use; resetting it when the loan ends means no abandoned query keeps
// a read snapshot (and so the WAL) pinned.
class StatementLease {
 public:
  explicit StatementLease(Statement* stmt) : stmt_(stmt) {}
  StatementLease(StatementLease&& other) noexcept : stmt_(std::exchange(other.stmt_, nullptr)) {}
  StatementLease& operator=(StatementLease&&) = delete;
  ~StatementLease() {
    if (stmt_ != nullptr) stmt_->Reset();
  }
  Statement* operator->() const { return stmt_; }
  Statement& operator*() const { return *stmt_; }

 private:
  Statement* stmt_;
};

// Saved hunks by file path, with their row ids: where a violation is looked for.
using HunksByPath = std::unordered_map<std::string, std::vector<std::pair<int64_t, const analyzer::Hunk*>>>;

// Files read back together with their row ids, so hunks and lists can be attached by id.
struct FileSet {
  std::vector<analyzer::FileChange> files;
  std::unordered_map<int64_t, size_t> index_by_id;
};

// Which rows AttachHunks reads: every hunk of an analysis, or those of one file.
enum class HunkScope { kAnalysis, kFile };

// --- JSON columns (never throwing: parse with allow_exceptions=false, read with type checks) ---

inline std::string Dump(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

inline std::vector<std::string> Strings(const nlohmann::json& array) {
  std::vector<std::string> out;
  if (!array.is_array()) return out;
  for (const auto& item : array)
    if (item.is_string()) out.push_back(item.get<std::string>());
  return out;
}

struct Store::Impl {
  Database db;
  base::Clock& clock;
  int schema_version = 0;
  std::unordered_map<std::string, Statement> statements;  // by SQL text; destroyed before db

  Impl(Database database, base::Clock& c) : db(std::move(database)), clock(c) {}

  int64_t now_s() { return clock.NowS(); }

  Result<StatementLease> Lease(const std::string& sql) {
    auto it = statements.find(sql);
    if (it == statements.end()) {
      FS_ASSIGN_OR_RETURN(Statement stmt, db.Prepare(sql));
      it = statements.emplace(sql, std::move(stmt)).first;
    }
    it->second.Reset();
    return StatementLease(&it->second);
  }

  // --- analyses: writing (store_analysis_write.cpp) ---
  Status CheckKey(const AnalysisKey& key, const analyzer::Analysis& analysis);
  // Deletes the analysis stored under key, if any (its rows go by cascade). A replacement keeps the
  // old analysis' fork unless fork_id is given, and every fork that called the old one latest.
  Status DropPrevious(const AnalysisKey& key, std::optional<int64_t>& fork_id, std::vector<int64_t>& latest_of);
  // The analysis with every child row; it becomes the latest of latest_of and of fork_id.
  Result<int64_t> InsertAnalysis(const AnalysisKey& key, const analyzer::Analysis& analysis,
                                 std::optional<int64_t> fork_id, std::vector<int64_t> latest_of);
  Status MakeLatest(int64_t analysis_id, const std::vector<int64_t>& forks);
  Result<int64_t> InsertAnalysisRow(const AnalysisKey& key, const analyzer::Analysis& analysis,
                                    std::optional<int64_t> fork_id);
  Status InsertPatternCounts(int64_t analysis_id, const analyzer::Analysis& analysis,
                             std::unordered_set<std::string>& known);
  Status InsertFiles(int64_t analysis_id, const analyzer::Analysis& analysis, std::unordered_set<std::string>& known,
                     HunksByPath& hunks_by_path);
  Status InsertViolations(int64_t analysis_id, const analyzer::Analysis& analysis, const HunksByPath& hunks_by_path);
  Status InsertCompatGaps(int64_t analysis_id, const analyzer::Analysis& analysis);

  // --- analyses: reading (store_analysis_read.cpp) ---
  Result<std::optional<int64_t>> FindId(const AnalysisKey& key);
  Result<analyzer::Analysis> Load(int64_t analysis_id, bool with_lines);
  Status RequireAnalysis(int64_t analysis_id);
  Result<FileSet> ReadFiles(StatementLease& stmt);
  Status AttachHunks(FileSet& set, HunkScope scope, int64_t scope_id, bool with_lines);
  Status LoadAnalysisLists(int64_t analysis_id, analyzer::Analysis& analysis);

  // --- registry (store.cpp) ---
  Result<ForkRecord> ForkById(int64_t id);
  Result<ForkRecord> ForkByName(const std::string& name);

  // --- credentials (fork_credentials.cpp) ---
  // What a fork URL write stores: the URL with "***" for its userinfo, and the userinfo for
  // fork_credentials ("" removes the row; keep leaves the stored one).
  struct UrlWrite {
    std::string url;
    std::string userinfo;
    bool keep = false;
  };
  // given as a client sent it; stored the URL stored before ("" for a new fork). "***" in given keeps
  // the stored credentials only for the same URL: they are never sent to another host.
  Result<UrlWrite> PrepareUrl(std::string_view field, const std::string& given, const std::string& stored);
  Status WriteCredential(int64_t fork_id, std::string_view side, const UrlWrite& write);
  Result<std::string> FetchUrl(int64_t fork_id, std::string_view side, const std::string& stored);
};

}  // namespace forkscope::storage
