// The pattern catalogue over the analyses in the database: named patterns (the rules' ids, tagged by
// the classifier) and mined ones (hunks grouped by fingerprint across forks), with the state of
// incremental mining in the v6 tables (storage/pattern_store.cpp); the mining itself, fingerprints and
// their grouping, is server::MinePatterns over AnalysisMining. Occurrence counts are over current
// analyses (storage/pattern_sql.h); first/last seen are history.
// Thread contract: construct over a Store on the thread that uses it; mining from two threads of one
// process must be serialised by the caller (server/services/pattern_service.h does), two processes are
// serialised per analysis by SQLite's write lock.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analyzer/model/experience.h"
#include "analyzer/model/model.h"
#include "base/clock.h"
#include "storage/sql_catalogue.h"
#include "storage/store.h"

namespace forkscope::storage {

// A hunk of an analysis to mine, as stored.
struct MinableHunk {
  int64_t hunk_id = 0;
  std::string path;
  analyzer::Layer layer = analyzer::Layer::kOther;
  std::vector<analyzer::DiffLine> lines;
  std::vector<std::string> named;  // the named patterns it carries
};

struct MiningReport {
  int analyses = 0;  // analyses fingerprinted by this run
  int hunks = 0;     // hunks fingerprinted (hunks below min_tokens are not)
  int new_fingerprints = 0;
  int new_patterns = 0;
  int merged_patterns = 0;  // patterns absorbed into older ones
  bool rebuilt = false;     // the mining options changed, so everything was mined again
};

enum class PatternKind { kNamed, kMined };
const char* PatternKindName(PatternKind kind);  // "named" | "mined"

// A hunk shown as a pattern's representative.
struct PatternExample {
  std::string fork;
  int64_t analysis_id = 0;
  std::string path;
  int hunk_index = 0;
  int new_start = 0;
  std::vector<std::string> lines;  // origin character + text; at most kExampleLines
};
inline constexpr size_t kExampleLines = 40;

struct CataloguePattern {
  std::string id;
  PatternKind kind = PatternKind::kNamed;
  std::string layer;
  std::string file_kind;    // mined: the file kind of its hunks ("py", "cxx", ...); named: ""
  std::string seed_tokens;  // mined: its seed fingerprint's tokens as stored (fingerprints.tokens); named: ""
  // Named: the rule's description. The rest of this block is filled by server::DescribeCataloguePattern
  // (services/pattern_catalogue.h), not by the store.
  std::string description;  // mined: what it does, where, and a line of its representative hunk
  // The description as a code with parameters: mined, PatternDescription's; named, "pattern.named" {id}.
  std::string description_code;
  std::vector<std::pair<std::string, std::string>> description_params;
  std::string action;  // mined: "adds", "edits" or "removes" (analyzer/patterns/pattern_describe.h); named: ""
  int rank = 0;        // the catalogue's order before forks and occurrences (MigrationRank)
  int total = 0;       // occurrences in current analyses
  std::vector<std::pair<std::string, int>> per_fork;  // most occurrences first
  int64_t first_seen = 0;                             // analysis times (unix seconds); 0 = never seen
  int64_t last_seen = 0;
  std::optional<PatternExample> example;
  std::vector<std::string> named;              // mined: named patterns carried by most of its hunks
  std::vector<PatternOccurrence> occurrences;  // filled by Get() only
  int forks_count() const { return static_cast<int>(per_fork.size()); }
};

struct PatternFilter {
  std::string layer;             // "" = any
  std::optional<int> min_forks;  // unset: 1 for named patterns, 2 for mined ones (one fork's hunk is no pattern)
  std::optional<PatternKind> kind;
};

class PatternStore {
 public:
  PatternStore(Store& store, base::Clock& clock);

  // What mining (server::MinePatterns) reads. A plain read first: with nothing new to do it takes no
  // write lock. When the mining options' version differs from the one stored, forgets every
  // fingerprint, mined pattern and mined analysis and stores the new version; true when an older one
  // was stored (a rebuild, logged).
  Result<bool> ResetIfMiningChanged(const std::string& version);
  // Current analyses not mined yet, oldest first.
  Result<std::vector<int64_t>> Unmined();
  // The hunks of an analysis in file and hunk order, with the named patterns each carries.
  Result<std::vector<MinableHunk>> HunksToMine(int64_t analysis_id);
  // The catalogue, named patterns then mined ones, each in id order, not yet described or ranked
  // (server::ListCatalogue does both).
  Result<std::vector<CataloguePattern>> List(const PatternFilter& filter);
  // A counter that every change which can change List's answer raises (schema version 17's triggers):
  // equal generations, equal catalogues, so a rendered answer can be kept under it.
  Result<int64_t> CatalogueGeneration();
  // One pattern with its occurrences, not yet described; NotFound when no catalogue knows the id.
  Result<CataloguePattern> Get(const std::string& id);
  // What each current fork's migration looks like, for the planner.
  Result<std::vector<analyzer::ForkProfile>> ForkProfiles();

 private:
  Database& db_;
  base::Clock& clock_;
};

// One analysis mined in one write transaction: Begin, the catalogue's changes and a Link per
// fingerprinted hunk, then Finish; rolled back unless Finish succeeded. One thread.
class AnalysisMining {
 public:
  AnalysisMining(Store& store, base::Clock& clock, int64_t analysis_id);
  // Takes the write lock; false when the analysis was mined meanwhile (by another process): nothing to do.
  Result<bool> Begin();
  SqlCatalogue& catalogue() { return *catalogue_; }  // after Begin returned true
  // Records that the hunk has the fingerprint; known: it was in the catalogue (its last_seen moves).
  Status Link(int64_t hunk_id, const std::string& hash, bool known);
  // Marks the named patterns seen at the analysis' time and the analysis mined, and commits.
  Status Finish(const std::set<std::string>& named_seen);

 private:
  Database& db_;
  base::Clock& clock_;
  int64_t analysis_id_;
  int64_t seen_at_ = 0;
  std::optional<Transaction> txn_;
  std::optional<SqlCatalogue> catalogue_;
  std::optional<Statement> link_;
};

}  // namespace forkscope::storage
