// Integrators in SQLite (schema v16, documented in storage/migrations_areas.cpp): the registry of
// repositories that ship forks as submodules, each sync's report (the API's JSON text, encoded by
// analyzer/integration/integrator_json.h) and the pin bumps pushed to them. An integrator's http(s) URL is
// stored with '***' for its userinfo and the credentials apart, as forks' are; FetchUrl puts them
// together again, in memory, for a fetch. An IntegratorStore borrows the Database of a Store
// (Store::db()) and is used on that thread only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"

namespace forkscope::storage {

class Database;

struct IntegratorRecord {
  int64_t id = 0;
  std::string name;
  std::string url;  // credentials shown as '***'
  std::string branch;
  std::string push_url;  // '' = never push; without credentials
  int64_t created_at = 0;
  int64_t updated_at = 0;
};

struct IntegratorReportRecord {
  int64_t id = 0;
  std::string integrator;  // its name
  std::string head;
  std::string report;  // JSON text
  int libraries = 0;
  int orphaned = 0;
  int behind = 0;
  int64_t created_at = 0;
};

struct IntegratorBumpRecord {
  std::string integrator;
  std::string path;
  std::string fork;
  std::string new_sha;
  std::string commit_sha;
  std::string branch;
  std::string pushed_url;  // credentials are stripped here
  int64_t pushed_at = 0;
  std::string error;
  int64_t created_at = 0;
};

class IntegratorStore {
 public:
  explicit IntegratorStore(Database& db) : db_(db) {}

  // Registers an integrator; url may carry credentials (kept apart). AlreadyExists for a taken name,
  // InvalidArgument for an empty name, URL or branch.
  Result<IntegratorRecord> Add(const std::string& name, const std::string& url, const std::string& branch,
                               const std::string& push_url, int64_t now_s);
  // Adds the integrator, or updates its url, branch and push_url (the configuration's [[integrators]]
  // on each start). A url given with '***' keeps the stored credentials.
  Result<IntegratorRecord> Upsert(const std::string& name, const std::string& url, const std::string& branch,
                                  const std::string& push_url, int64_t now_s);
  Result<std::vector<IntegratorRecord>> List();
  Result<IntegratorRecord> Get(const std::string& name);  // NotFound
  // The URL with its credentials put back, to fetch with. Never show it.
  Result<std::string> FetchUrl(const std::string& name);
  Status Remove(const std::string& name);  // NotFound; its reports and bumps go with it

  // Stores a sync's report; returns its id.
  Result<int64_t> SaveReport(const std::string& name, const std::string& head, const std::string& report_json,
                             int libraries, int orphaned, int behind, int64_t now_s);
  Result<std::optional<IntegratorReportRecord>> LatestReport(const std::string& name);
  // Newest first, at most limit.
  Result<std::vector<IntegratorReportRecord>> Reports(const std::string& name, int limit);

  // Records a bump unless one for the same (integrator, path, new_sha) exists: true when recorded now.
  Result<bool> RecordBump(const IntegratorBumpRecord& bump);
  Result<std::optional<IntegratorBumpRecord>> FindBump(const std::string& name, const std::string& path,
                                                       const std::string& new_sha);

 private:
  Result<int64_t> IdOf(const std::string& name);
  Status WriteCredentials(int64_t id, const std::string& userinfo, bool keep);
  Database& db_;
};

}  // namespace forkscope::storage
