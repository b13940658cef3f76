#include "storage/integrator_store.h"

#include "base/url.h"
#include "storage/db.h"

namespace forkscope::storage {
namespace {

// A URL's form to store and the credentials to keep apart; keep: '***' given back for stored ones.
struct UrlSplit {
  std::string stored;
  std::string userinfo;
  bool keep = false;
};

UrlSplit SplitUrl(const std::string& url) {
  const base::UrlCredentials split = base::SplitCredentials(url);
  UrlSplit out;
  out.userinfo = split.userinfo;
  out.stored = split.userinfo.empty() ? url : base::WithUserinfo(split.url, std::string(base::kRedactedUserinfo));
  out.keep = split.userinfo == base::kRedactedUserinfo;
  return out;
}

constexpr const char* kColumns = "id, name, url, branch, push_url, created_at, updated_at";

IntegratorRecord Row(Statement& s) {
  return {s.ColumnInt64(0), s.ColumnText(1),  s.ColumnText(2), s.ColumnText(3),
          s.ColumnText(4),  s.ColumnInt64(5), s.ColumnInt64(6)};
}

Status Validate(const std::string& name, const std::string& url, const std::string& branch) {
  if (name.empty()) return InvalidArgument("an integrator needs a name");
  if (url.empty()) return InvalidArgument("integrator \"" + name + "\" needs a url");
  if (branch.empty()) return InvalidArgument("integrator \"" + name + "\" needs a branch");
  return Status::Ok();
}

}  // namespace

Result<int64_t> IntegratorStore::IdOf(const std::string& name) {
  FS_ASSIGN_OR_RETURN(Statement s, db_.Prepare("SELECT id FROM integrators WHERE name = ?1"));
  s.Bind(1, name);
  FS_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return NotFound("integrator \"" + name + "\" not found");
  int64_t id = s.ColumnInt64(0);
  s.Reset();
  return id;
}

Status IntegratorStore::WriteCredentials(int64_t id, const std::string& userinfo, bool keep) {
  if (keep) return Status::Ok();
  if (userinfo.empty()) {
    FS_ASSIGN_OR_RETURN(Statement d, db_.Prepare("DELETE FROM integrator_credentials WHERE integrator_id = ?1"));
    d.Bind(1, id);
    return d.Run();
  }
  FS_ASSIGN_OR_RETURN(Statement p, db_.Prepare("INSERT OR REPLACE INTO integrator_credentials (integrator_id, userinfo)"
                                               " VALUES (?1, ?2)"));
  p.Bind(1, id).Bind(2, userinfo);
  return p.Run();
}

Result<IntegratorRecord> IntegratorStore::Add(const std::string& name, const std::string& url,
                                              const std::string& branch, const std::string& push_url, int64_t now_s) {
  FS_RETURN_IF_ERROR(Validate(name, url, branch));
  const UrlSplit split = SplitUrl(url);
  if (split.keep)
    return InvalidArgument("'***' stands for stored credentials, and integrator \"" + name + "\" has none");
  NestedTransaction tx(db_);
  FS_RETURN_IF_ERROR(tx.status());
  FS_ASSIGN_OR_RETURN(Statement s, db_.Prepare("INSERT INTO integrators (name, url, branch, push_url, created_at,"
                                               " updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?5)"));
  s.Bind(1, name).Bind(2, split.stored).Bind(3, branch).Bind(4, base::SplitCredentials(push_url).url).Bind(5, now_s);
  Status inserted = s.Run();
  if (inserted.code() == StatusCode::kAlreadyExists) return AlreadyExists("integrator \"" + name + "\" already exists");
  FS_RETURN_IF_ERROR(inserted);
  const int64_t id = db_.LastInsertRowid();
  FS_RETURN_IF_ERROR(WriteCredentials(id, split.userinfo, false));
  FS_RETURN_IF_ERROR(tx.Commit());
  return Get(name);
}

Result<IntegratorRecord> IntegratorStore::Upsert(const std::string& name, const std::string& url,
                                                 const std::string& branch, const std::string& push_url,
                                                 int64_t now_s) {
  FS_RETURN_IF_ERROR(Validate(name, url, branch));
  auto existing = IdOf(name);
  if (existing.status().code() == StatusCode::kNotFound) return Add(name, url, branch, push_url, now_s);
  FS_RETURN_IF_ERROR(existing.status());
  const UrlSplit split = SplitUrl(url);
  NestedTransaction tx(db_);
  FS_RETURN_IF_ERROR(tx.status());
  if (split.keep) {
    FS_ASSIGN_OR_RETURN(IntegratorRecord before, Get(name));
    if (before.url != split.stored)
      return InvalidArgument("'***' stands for stored credentials, and none are stored for this URL of integrator \"" +
                             name + "\"");
  }
  FS_ASSIGN_OR_RETURN(Statement s, db_.Prepare("UPDATE integrators SET url = ?2, branch = ?3, push_url = ?4,"
                                               " updated_at = ?5 WHERE id = ?1"));
  s.Bind(1, *existing)
      .Bind(2, split.stored)
      .Bind(3, branch)
      .Bind(4, base::SplitCredentials(push_url).url)
      .Bind(5, now_s);
  FS_RETURN_IF_ERROR(s.Run());
  FS_RETURN_IF_ERROR(WriteCredentials(*existing, split.userinfo, split.keep));
  FS_RETURN_IF_ERROR(tx.Commit());
  return Get(name);
}

Result<std::vector<IntegratorRecord>> IntegratorStore::List() {
  FS_ASSIGN_OR_RETURN(Statement s, db_.Prepare(std::string("SELECT ") + kColumns + " FROM integrators ORDER BY name"));
  std::vector<IntegratorRecord> out;
  while (true) {
    FS_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.push_back(Row(s));
  }
  return out;
}

Result<IntegratorRecord> IntegratorStore::Get(const std::string& name) {
  FS_ASSIGN_OR_RETURN(Statement s,
                      db_.Prepare(std::string("SELECT ") + kColumns + " FROM integrators WHERE name = ?1"));
  s.Bind(1, name);
  FS_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return NotFound("integrator \"" + name + "\" not found");
  IntegratorRecord r = Row(s);
  s.Reset();
  return r;
}

Result<std::string> IntegratorStore::FetchUrl(const std::string& name) {
  FS_ASSIGN_OR_RETURN(IntegratorRecord r, Get(name));
  FS_ASSIGN_OR_RETURN(Statement s, db_.Prepare("SELECT userinfo FROM integrator_credentials WHERE integrator_id = ?1"));
  s.Bind(1, r.id);
  FS_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return r.url;
  std::string userinfo = s.ColumnText(0);
  s.Reset();
  return base::WithUserinfo(base::SplitCredentials(r.url).url, userinfo);
}

Status IntegratorStore::Remove(const std::string& name) {
  FS_ASSIGN_OR_RETURN(Statement s, db_.Prepare("DELETE FROM integrators WHERE name = ?1"));
  s.Bind(1, name);
  FS_RETURN_IF_ERROR(s.Run());
  if (db_.Changes() == 0) return NotFound("integrator \"" + name + "\" not found");
  return Status::Ok();
}

Result<int64_t> IntegratorStore::SaveReport(const std::string& name, const std::string& head,
                                            const std::string& report_json, int libraries, int orphaned, int behind,
                                            int64_t now_s) {
  FS_ASSIGN_OR_RETURN(int64_t id, IdOf(name));
  FS_ASSIGN_OR_RETURN(Statement s, db_.Prepare("INSERT INTO integrator_reports (integrator_id, head, report, libraries,"
                                               " orphaned, behind, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"));
  s.Bind(1, id).Bind(2, head).Bind(3, report_json).Bind(4, libraries).Bind(5, orphaned).Bind(6, behind).Bind(7, now_s);
  FS_RETURN_IF_ERROR(s.Run());
  return db_.LastInsertRowid();
}

Result<std::vector<IntegratorReportRecord>> IntegratorStore::Reports(const std::string& name, int limit) {
  FS_ASSIGN_OR_RETURN(int64_t id, IdOf(name));
  FS_ASSIGN_OR_RETURN(Statement s, db_.Prepare("SELECT id, head, report, libraries, orphaned, behind, created_at"
                                               " FROM integrator_reports WHERE integrator_id = ?1 ORDER BY id DESC"
                                               " LIMIT ?2"));
  s.Bind(1, id).Bind(2, limit);
  std::vector<IntegratorReportRecord> out;
  while (true) {
    FS_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.push_back({s.ColumnInt64(0), name, s.ColumnText(1), s.ColumnText(2), s.ColumnInt(3), s.ColumnInt(4),
                   s.ColumnInt(5), s.ColumnInt64(6)});
  }
  return out;
}

Result<std::optional<IntegratorReportRecord>> IntegratorStore::LatestReport(const std::string& name) {
  FS_ASSIGN_OR_RETURN(auto reports, Reports(name, 1));
  if (reports.empty()) return std::optional<IntegratorReportRecord>();
  return std::optional<IntegratorReportRecord>(std::move(reports.front()));
}

Result<bool> IntegratorStore::RecordBump(const IntegratorBumpRecord& b) {
  FS_ASSIGN_OR_RETURN(int64_t id, IdOf(b.integrator));
  FS_ASSIGN_OR_RETURN(Statement s,
                      db_.Prepare("INSERT OR IGNORE INTO integrator_bumps (integrator_id, path, fork, new_sha,"
                                  " commit_sha, branch, pushed_url, pushed_at, error, created_at)"
                                  " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"));
  s.Bind(1, id).Bind(2, b.path).Bind(3, b.fork).Bind(4, b.new_sha).Bind(5, b.commit_sha).Bind(6, b.branch);
  s.Bind(7, base::RedactUrl(b.pushed_url)).Bind(8, b.pushed_at).Bind(9, b.error).Bind(10, b.created_at);
  FS_RETURN_IF_ERROR(s.Run());
  return db_.Changes() > 0;
}

Result<std::optional<IntegratorBumpRecord>> IntegratorStore::FindBump(const std::string& name, const std::string& path,
                                                                      const std::string& new_sha) {
  FS_ASSIGN_OR_RETURN(int64_t id, IdOf(name));
  FS_ASSIGN_OR_RETURN(Statement s,
                      db_.Prepare("SELECT fork, commit_sha, branch, pushed_url, pushed_at, error, created_at"
                                  " FROM integrator_bumps WHERE integrator_id = ?1 AND path = ?2 AND"
                                  " new_sha = ?3"));
  s.Bind(1, id).Bind(2, path).Bind(3, new_sha);
  FS_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return std::optional<IntegratorBumpRecord>();
  IntegratorBumpRecord b{name,
                         path,
                         s.ColumnText(0),
                         new_sha,
                         s.ColumnText(1),
                         s.ColumnText(2),
                         s.ColumnText(3),
                         s.ColumnInt64(4),
                         s.ColumnText(5),
                         s.ColumnInt64(6)};
  s.Reset();
  return std::optional<IntegratorBumpRecord>(std::move(b));
}

}  // namespace forkscope::storage
