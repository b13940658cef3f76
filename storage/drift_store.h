// Drift history in SQLite: every drift report of a registered fork, kept per computation (scalar
// columns for sorting, the report itself as the drift JSON). Lives in the Store's database (schema
// v3, documented in drift_store.cpp). A DriftStore borrows a Database and is used on that Database's
// thread; construct one where needed (it is cheap).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/model/drift.h"
#include "base/status.h"

namespace forkscope::storage {

class Database;

// Orders of the all-forks listing: risk, behind and age descending, name ascending; ties by name.
enum class DriftSort { kRisk, kBehind, kAge, kName };
// "risk" | "behind" | "age" | "name"; nullopt otherwise.
std::optional<DriftSort> DriftSortFromName(const std::string& name);

// Reports kept per fork by default: at one sync every 30 minutes, about six weeks of history.
inline constexpr int kDefaultDriftHistoryPerFork = 2000;

class DriftStore {
 public:
  // db must outlive the store. Saving prunes a fork's oldest reports beyond history_per_fork (>= 1).
  explicit DriftStore(Database& db, int history_per_fork = kDefaultDriftHistoryPerFork);

  // Appends a report to the fork's history; returns its id. FailedPrecondition for an unknown fork.
  Result<int64_t> Save(int64_t fork_id, const analyzer::DriftReport& report);
  // The fork's newest report (by insertion), if any. Its `fork` is the registered name.
  Result<std::optional<analyzer::DriftReport>> Latest(int64_t fork_id);
  // The fork's newest `limit` reports' figures, newest first.
  Result<std::vector<analyzer::DriftSummary>> History(int64_t fork_id, int limit);
  // The newest report of every registered fork that has one, in the given order.
  Result<std::vector<analyzer::DriftReport>> LatestOfEachFork(DriftSort sort);
  // The merge-base age (days) of each fork's newest report, by fork id: the forks page's column, read
  // without decoding the reports.
  Result<std::map<int64_t, double>> LatestAges();

 private:
  Database& db_;
  const int history_per_fork_;
};

}  // namespace forkscope::storage
