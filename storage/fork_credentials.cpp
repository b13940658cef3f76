// Credentials of fork URLs, kept apart from the URLs (schema version 10,
// storage/migrations_areas.cpp): the forks table holds each http(s) URL with "***" in place of its
// userinfo, fork_credentials the userinfo itself, and only ForkFetchUrls puts them together again, in
// memory, for a fetch.
#include <string>
#include <string_view>

#include "base/url.h"
#include "storage/db.h"
#include "storage/store.h"
#include "storage/store_impl.h"

namespace forkscope::storage {

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
