// The pattern catalogue over the analyses in the database: named patterns (the rules' ids, tagged by
// the classifier) and mined ones (hunks grouped by fingerprint across forks, analyzer/pattern_mining.h),
// with incremental mining whose state lives in the v6 tables (storage/pattern_store.cpp). Occurrence
// counts are over current analyses (storage/pattern_sql.h); first/last seen are history.
// Thread contract: construct over a Store on the thread that uses it; mining from two threads of one
// process must be serialised by the caller (server/pattern_service.h does), two processes are
// serialised per analysis by SQLite's write lock.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/model/experience.h"
#include "analyzer/patterns/pattern_mining.h"
#include "base/clock.h"
#include "storage/store.h"

namespace forkscope::storage {

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

  // Fingerprints every current analysis not mined yet (oldest first, one transaction each) and
  // groups the new fingerprints into patterns.
  Result<MiningReport> Mine(const analyzer::MiningOptions& options);
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
  Status CheckVersion(const analyzer::MiningOptions& options, MiningReport& report);
  Result<std::vector<int64_t>> Unmined();
  Status MineAnalysis(const analyzer::MiningOptions& options, int64_t analysis_id, MiningReport& report);

  Database& db_;
  base::Clock& clock_;
};

}  // namespace forkscope::storage
