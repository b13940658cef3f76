// The pattern catalogue's analysis over what storage/pattern_store.h keeps: mining (hunks fingerprinted
// and grouped, analyzer/patterns/, into the stored catalogue), and the catalogue as the API and the CLI
// show it (patterns said in words from their seed fingerprint and representative hunk, ordered by what a
// migration does first: analyzer/patterns/pattern_describe.h). Stateless; the caller passes a Store owned
// by its thread. Mining from two threads of one process must be serialised by the caller
// (PatternService does); two processes are serialised per analysis by SQLite's write lock.
#pragma once

#include <string>
#include <vector>

#include "analyzer/patterns/pattern_mining.h"
#include "base/clock.h"
#include "storage/pattern_store.h"
#include "storage/store.h"

namespace forkscope::server {

// Fingerprints every current analysis not mined yet (oldest first, one transaction each) and groups
// the new fingerprints into patterns; when the options changed since the last mining, mines
// everything again.
Result<storage::MiningReport> MinePatterns(storage::Store& store, base::Clock& clock,
                                           const analyzer::MiningOptions& options);

// Fills the description, its code and parameters, the action and the rank of a pattern as the store
// read it.
void DescribeCataloguePattern(storage::CataloguePattern& pattern);

// The catalogue, described: additions and edits before deletions of CI and docs, then the patterns most
// forks share, then the most occurrences.
Result<std::vector<storage::CataloguePattern>> ListCatalogue(storage::Store& store, base::Clock& clock,
                                                             const storage::PatternFilter& filter);
// One pattern with its occurrences, described; NotFound when no catalogue knows the id.
Result<storage::CataloguePattern> GetCataloguePattern(storage::Store& store, base::Clock& clock, const std::string& id);

}  // namespace forkscope::server
