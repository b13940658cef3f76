// The SQLite store: the fork registry and every analysis with its files, hunks, pattern
// occurrences, violations and compat gaps. One Store owns one connection: use it from one thread at
// a time (each worker opens its own; WAL lets readers and the writer proceed together).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/model/model.h"
#include "base/clock.h"
#include "base/status.h"
#include "storage/task_store.h"

namespace forkscope::storage {

class Database;

// What identifies an analysis: the same key is answered from the database.
struct AnalysisKey {
  std::string fork_sha;
  std::string upstream_sha;
  std::string base_sha;  // the merge-base or the given/searched base actually diffed against
  std::string rules_version;
};

// What SaveAnalysisIfAbsent did: the analysis id, and whether it was stored before (by another saver).
struct SavedAnalysis {
  int64_t id = 0;
  bool existed = false;
};

struct ForkRecord {
  int64_t id = 0;
  std::string name;
  // The URLs as given on write; as stored on read: an http(s) URL's credentials read "***"
  // (https://***@host/x.git) and stay in the store, for ForkFetchUrls. Writing "***" back keeps them.
  std::string fork_url;
  std::string branch;  // migration branch ("" = paddle, falling back to default)
  std::string upstream_url;
  std::string upstream_branch;  // "" = upstream default, "auto" = detect
  // What the fork is diffed against: "" = its merge-base with upstream; "auto" = the upstream commit
  // whose files keep the most of the fork's content (a re-imported fork, no shared history); else an
  // upstream revision (a sha, a tag). Schema version 11.
  std::string base;
  int sync_interval_s = 1800;
  std::vector<std::string> labels;
  std::optional<int64_t> latest_analysis_id;
  int64_t created_at = 0;
  int64_t updated_at = 0;
};

// The URLs to fetch a registered fork with: its stored URLs with their credentials put back. For the
// fetch only, in memory: never store, log or serve them.
struct FetchUrls {
  std::string fork_url;
  std::string upstream_url;
  std::vector<std::string> userinfo;  // the credentials in them, to scrub from a fetch's error messages
};

// Filters of the files listing; empty strings mean "any".
struct FileFilter {
  std::string layer;
  std::string pattern;
  std::string violation;
};

// One occurrence of a pattern: where it was seen.
struct PatternOccurrence {
  std::string pattern_id;
  std::string fork_name;  // "" for analyses not tied to a registered fork
  int64_t analysis_id = 0;
  std::string path;
  int hunk_index = 0;
  int new_start = 0;
  std::string layer;
};

// What a fork's row on the forks page shows of its latest analysis: its commits' distance, the
// per-layer counts (analysis JSON `summary.layers`) and how many violations it has.
struct AnalysisHead {
  int64_t fork_id = 0;
  int64_t analysis_id = 0;
  int64_t created_at = 0;
  std::string fork_branch;
  int ahead = 0;
  int behind = 0;
  std::array<analyzer::LayerSummary, 5> layers{};  // indexed by analyzer::Layer
  int violations = 0;
};

// A pattern with per-fork counts (latest analysis of each registered fork).
struct PatternSummary {
  std::string id;
  std::string layer;
  std::string description;
  int total = 0;
  std::vector<std::pair<std::string, int>> per_fork;  // fork name -> occurrences
};

class Store {
 public:
  // Opens (creating if needed) the database at path (":memory:" works), enables WAL, foreign keys
  // and a busy timeout, and applies pending schema migrations.
  static Result<std::unique_ptr<Store>> Open(const std::string& path);
  // As above with an injected clock for the times the store sets itself (forks' created_at/updated_at,
  // finished_at of tasks failed on restart); the one-argument form uses the system clock. clock must
  // outlive the store.
  static Result<std::unique_ptr<Store>> Open(const std::string& path, base::Clock& clock);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  int SchemaVersion() const;

  // --- analyses ---
  // Returns the stored analysis for key, if any; Analysis::cached is left false (the caller sets it).
  Result<std::optional<analyzer::Analysis>> FindAnalysis(const AnalysisKey& key, bool with_lines = false);
  Result<std::optional<int64_t>> FindAnalysisId(const AnalysisKey& key);
  // Stores the analysis in one transaction (replacing a previous one with the same key) and, when
  // fork_id is set, makes it that fork's latest. Returns the analysis id.
  Result<int64_t> SaveAnalysis(const AnalysisKey& key, const analyzer::Analysis& analysis,
                               std::optional<int64_t> fork_id = std::nullopt);
  // Stores the analysis unless one with the same key is stored, in one transaction: concurrent savers
  // of the same commits (forks that share them, syncing at once) end with one row that they all point
  // at, and no saver deletes a row another one already handed out. With fork_id set, the saved or the
  // existing analysis becomes that fork's latest.
  Result<SavedAnalysis> SaveAnalysisIfAbsent(const AnalysisKey& key, const analyzer::Analysis& analysis,
                                             std::optional<int64_t> fork_id = std::nullopt);
  Result<analyzer::Analysis> LoadAnalysis(int64_t analysis_id, bool with_lines = false);
  // The latest analysis of every fork that has one (or of fork_id alone), as its row on the forks page
  // shows it (no files).
  Result<std::vector<AnalysisHead>> LatestAnalysisHeads(std::optional<int64_t> fork_id = std::nullopt);
  // Makes a stored analysis (e.g. one answered from the cache) the fork's latest. NotFound when the
  // fork or the analysis is unknown.
  Status SetLatestAnalysis(int64_t fork_id, int64_t analysis_id);
  // Files of an analysis (hunks included, without lines), filtered.
  Result<std::vector<analyzer::FileChange>> ListFiles(int64_t analysis_id, const FileFilter& filter);
  // One file with its hunks and their lines.
  Result<analyzer::FileChange> GetFile(int64_t analysis_id, const std::string& path);

  // --- patterns across forks (latest analysis of each registered fork) ---
  Result<std::vector<PatternSummary>> ListPatterns();
  Result<std::vector<PatternOccurrence>> PatternOccurrences(const std::string& pattern_id);

  // --- fork registry ---
  // Credentials in the URLs are kept apart (see ForkRecord); each write is all-or-nothing, inside a
  // caller's transaction too. InvalidArgument for "***" where no credentials are stored for that URL.
  Result<ForkRecord> CreateFork(const ForkRecord& fork);  // AlreadyExists on duplicate name
  Result<ForkRecord> GetFork(const std::string& name);    // NotFound
  Result<std::vector<ForkRecord>> ListForks();
  Result<ForkRecord> UpdateFork(const ForkRecord& fork);  // by id
  Status DeleteFork(const std::string& name);             // its analyses go too
  Result<FetchUrls> ForkFetchUrls(int64_t fork_id);       // NotFound

  // "ok" when PRAGMA integrity_check passes, else its first message.
  Result<std::string> IntegrityCheck();

  // The connection, for the stores of other areas (drift, alerts, jobs, mined patterns) that keep
  // their own tables in the same database: construct them over it, on the same thread.
  Database& db();

 private:
  struct Impl;
  explicit Store(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace forkscope::storage
