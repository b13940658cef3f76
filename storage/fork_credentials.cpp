// Credentials of fork URLs, kept apart from the URLs (schema version 10): the forks table holds each
// http(s) URL with "***" in place of its userinfo, fork_credentials the userinfo itself, and only
// ForkFetchUrls puts them together again, in memory, for a fetch.
#include <string>
#include <string_view>

#include "base/url.h"
#include "storage/db.h"
#include "storage/schema_parts.h"
#include "storage/store.h"
#include "storage/store_impl.h"

namespace forkscope::storage {

// The userinfo and the redacted URL of an http(s) URL column, as SQL (for the rows written before
// version 10). rest(c) is the URL after "://"; its first '@' before any '/' ends the userinfo.
#define FS_REST(c) "substr(" c ", instr(" c ", '://') + 3)"
#define FS_HAS_USERINFO(c)                                                                         \
  "((lower(" c ") LIKE 'http://%' OR lower(" c ") LIKE 'https://%') AND instr(" FS_REST(c) ", '@') > 0 " \
  "AND (instr(" FS_REST(c) ", '/') = 0 OR instr(" FS_REST(c) ", '@') < instr(" FS_REST(c) ", '/')))"
#define FS_USERINFO(c) "substr(" FS_REST(c) ", 1, instr(" FS_REST(c) ", '@') - 1)"
#define FS_REDACTED(c) \
  "substr(" c ", 1, instr(" c ", '://') + 2) || '***' || substr(" FS_REST(c) ", instr(" FS_REST(c) ", '@'))"

const std::string_view kSchemaV10Credentials = R"sql(
/*
** forkscope database, schema version 10: credentials out of URLs.
**
** A repository URL's userinfo ("user:token" in https://user:token@host/x.git) is a secret. Since version
** 10 forks.fork_url and forks.upstream_url keep an http(s) URL's userinfo as '***'
** (https://***@host/x.git), which is what the API shows, and analyses store their URLs the same way.
**
** fork_credentials -- the userinfo of a fork's http(s) URLs. Read only to fetch (it is put back into the
** URL in memory); never served, logged or copied into another table.
**   fork_id     forks.id, ON DELETE CASCADE.
**   side        'fork' (forks.fork_url) or 'upstream' (forks.upstream_url).
**   userinfo    the credentials as given in the URL (percent-encoding kept).
**   PRIMARY KEY (fork_id, side).
** Rows written before version 10 are converted here: their userinfo moves to fork_credentials and their
** URLs, and those of analyses, are redacted.
*/
CREATE TABLE fork_credentials (
  fork_id  INTEGER NOT NULL REFERENCES forks(id) ON DELETE CASCADE,
  side     TEXT NOT NULL CHECK (side IN ('fork', 'upstream')),
  userinfo TEXT NOT NULL,
  PRIMARY KEY (fork_id, side)
);
)sql"
    "INSERT INTO fork_credentials (fork_id, side, userinfo) SELECT id, 'fork', " FS_USERINFO("fork_url")
    " FROM forks WHERE " FS_HAS_USERINFO("fork_url") " AND " FS_USERINFO("fork_url") " <> '***';\n"
    "INSERT INTO fork_credentials (fork_id, side, userinfo) SELECT id, 'upstream', " FS_USERINFO("upstream_url")
    " FROM forks WHERE " FS_HAS_USERINFO("upstream_url") " AND " FS_USERINFO("upstream_url") " <> '***';\n"
    "UPDATE forks SET fork_url = " FS_REDACTED("fork_url") " WHERE " FS_HAS_USERINFO("fork_url") ";\n"
    "UPDATE forks SET upstream_url = " FS_REDACTED("upstream_url") " WHERE " FS_HAS_USERINFO("upstream_url") ";\n"
    "UPDATE analyses SET fork_url = " FS_REDACTED("fork_url") " WHERE " FS_HAS_USERINFO("fork_url") ";\n"
    "UPDATE analyses SET upstream_url = " FS_REDACTED("upstream_url") " WHERE " FS_HAS_USERINFO("upstream_url") ";\n";

#undef FS_REDACTED
#undef FS_USERINFO
#undef FS_HAS_USERINFO
#undef FS_REST

Result<Store::Impl::UrlWrite> Store::Impl::PrepareUrl(std::string_view field, const std::string& given,
                                                      const std::string& stored) {
  const base::UrlCredentials split = base::SplitCredentials(given);
  UrlWrite w;
  w.url = split.userinfo.empty() ? given : base::WithUserinfo(split.url, std::string(base::kRedactedUserinfo));
  w.userinfo = split.userinfo;
  if (split.userinfo != base::kRedactedUserinfo) return w;
  // "***" comes back from a read of the fork: it keeps the stored credentials, for the URL they were given with.
  const base::UrlCredentials before = base::SplitCredentials(stored);
  if (before.userinfo != base::kRedactedUserinfo || before.url != split.url)
    return InvalidArgument("field '" + std::string(field) +
                           "': '***' stands for stored credentials, and none are stored for this URL; give the "
                           "credentials again (or none)");
  w.keep = true;
  return w;
}

Status Store::Impl::WriteCredential(int64_t fork_id, std::string_view side, const UrlWrite& write) {
  if (write.keep) return Status::Ok();
  if (write.userinfo.empty()) {
    FS_ASSIGN_OR_RETURN(StatementLease drop, Lease("DELETE FROM fork_credentials WHERE fork_id = ?1 AND side = ?2"));
    drop->Bind(1, fork_id).Bind(2, side);
    return drop->Run();
  }
  FS_ASSIGN_OR_RETURN(StatementLease put,
                      Lease("INSERT INTO fork_credentials (fork_id, side, userinfo) VALUES (?1, ?2, ?3) "
                            "ON CONFLICT (fork_id, side) DO UPDATE SET userinfo = excluded.userinfo"));
  put->Bind(1, fork_id).Bind(2, side).Bind(3, write.userinfo);
  return put->Run();
}

Result<std::string> Store::Impl::FetchUrl(int64_t fork_id, std::string_view side, const std::string& stored) {
  FS_ASSIGN_OR_RETURN(StatementLease read,
                      Lease("SELECT userinfo FROM fork_credentials WHERE fork_id = ?1 AND side = ?2"));
  read->Bind(1, fork_id).Bind(2, side);
  FS_ASSIGN_OR_RETURN(bool row, read->Step());
  const base::UrlCredentials split = base::SplitCredentials(stored);
  if (split.userinfo != base::kRedactedUserinfo) return stored;
  // "***" without a row (a credential lost outside forkscope): fetch without, and let the server say no.
  return base::WithUserinfo(split.url, row ? read->ColumnText(0) : std::string());
}

Result<FetchUrls> Store::ForkFetchUrls(int64_t fork_id) {
  Impl& s = *impl_;
  Transaction snapshot(s.db, TransactionMode::kDeferred);
  FS_RETURN_IF_ERROR(snapshot.status());
  FS_ASSIGN_OR_RETURN(ForkRecord fork, s.ForkById(fork_id));
  FetchUrls urls;
  FS_ASSIGN_OR_RETURN(urls.fork_url, s.FetchUrl(fork_id, "fork", fork.fork_url));
  FS_ASSIGN_OR_RETURN(urls.upstream_url, s.FetchUrl(fork_id, "upstream", fork.upstream_url));
  urls.userinfo = {base::SplitCredentials(urls.fork_url).userinfo, base::SplitCredentials(urls.upstream_url).userinfo};
  return urls;
}

}  // namespace forkscope::storage
