// The pattern catalogue as the API and the CLI show it: the store's patterns (storage/pattern_store.h)
// said in words from their seed fingerprint and representative hunk, and ordered by what a migration
// does first (analyzer/patterns/pattern_describe.h). Stateless; the caller passes a Store owned by its
// thread.
#pragma once

#include <string>
#include <vector>

#include "base/clock.h"
#include "storage/pattern_store.h"
#include "storage/store.h"

namespace forkscope::server {

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
