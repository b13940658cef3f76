#include "analyzer/git/push.h"

#include <chrono>
#include <thread>

#include "analyzer/git/credentials.h"
#include "analyzer/git/fetch_internal.h"
#include "analyzer/git/handles.h"
#include "analyzer/git/transfer.h"
#include "base/log.h"
#include "base/url.h"

namespace forkscope::analyzer::git {
namespace {

struct PushPayload {
  UrlAuth auth;
  std::string dest_ref;
  std::string rejection;  // the remote's reason for refusing dest_ref; "" = accepted (or not reported)
};

int OnPushCredentials(git_credential** out, const char* url, const char*, unsigned int allowed, void* payload) {
  return AcquireUrlCredentials(static_cast<PushPayload*>(payload)->auth, out, url, allowed);
}

// Told of each ref the remote updated (status null) or refused (status: its reason).
int OnUpdateReference(const char* refname, const char* status, void* payload) {
  auto* p = static_cast<PushPayload*>(payload);
  if (status != nullptr && refname != nullptr && p->dest_ref == refname) p->rejection = status;
  return 0;
}

// The oid the remote advertises for ref ("" when it has none), read on a new connection.
Result<std::string> AdvertisedOid(git_repository* repo, const std::string& url, PushPayload& payload,
                                  const std::string& ref, const std::string& shown) {
  FS_ASSIGN_OR_RETURN(RemotePtr remote, AnonymousRemote(repo, url, "remote " + shown));
  git_remote_callbacks callbacks = GIT_REMOTE_CALLBACKS_INIT;
  callbacks.credentials = OnPushCredentials;
  callbacks.payload = &payload;
  FS_RETURN_IF_ERROR(
      FromGit(git_remote_connect(remote.get(), GIT_DIRECTION_PUSH, &callbacks, nullptr, nullptr), "connect " + shown));
  const git_remote_head** heads = nullptr;
  size_t count = 0;
  FS_RETURN_IF_ERROR(FromGit(git_remote_ls(&heads, &count, remote.get()), "list " + shown));
  for (size_t i = 0; i < count; ++i)
    if (ref == heads[i]->name) return OidHex(heads[i]->oid);
  return std::string();
}

// One push of refspec; a ref the remote refused is a FailedPrecondition with its reason.
Status PushOnce(git_repository* repo, const std::string& url, std::string& refspec, PushPayload& payload,
                const std::string& shown) {
  FS_ASSIGN_OR_RETURN(RemotePtr remote, AnonymousRemote(repo, url, "remote " + shown));
  git_push_options opts = GIT_PUSH_OPTIONS_INIT;
  opts.callbacks.credentials = OnPushCredentials;
  opts.callbacks.push_update_reference = OnUpdateReference;
  opts.callbacks.payload = &payload;
  char* specs[] = {refspec.data()};
  const git_strarray refspecs = {specs, 1};
  FS_RETURN_IF_ERROR(FromGit(git_remote_push(remote.get(), &refspecs, &opts), "push to " + shown));
  if (!payload.rejection.empty())
    return FailedPrecondition("push to " + shown + ": the remote rejected " + payload.dest_ref + ": " +
                              payload.rejection);
  return Status::Ok();
}

bool ValidRefName(const std::string& ref) {
  int valid = 0;
  return git_reference_name_is_valid(&valid, ref.c_str()) == 0 && valid != 0;
}

}  // namespace

std::string SyncBranchRef(const std::string& onto) {
  return std::string(kPublishRefPrefix) + "sync-" + onto.substr(0, 12);
}

Status CheckPublishRef(const std::string& dest_ref, const std::string& migration_branch) {
  const std::string_view prefix = kPublishRefPrefix;
  if (dest_ref.size() <= prefix.size() || dest_ref.compare(0, prefix.size(), prefix) != 0 || !ValidRefName(dest_ref))
    return InvalidArgument("refusing to push to '" + dest_ref + "': forkscope pushes only to branches under " +
                           std::string(prefix));
  if (dest_ref == "refs/heads/" + migration_branch)
    return InvalidArgument("refusing to push to '" + dest_ref + "': it is the fork's migration branch");
  return Status::Ok();
}

Status PushCommit(const PushRequest& r) {
  FS_RETURN_IF_ERROR(CheckPublishRef(r.dest_ref, r.migration_branch));
  if (r.source_ref.rfind("refs/", 0) != 0 || !ValidRefName(r.source_ref))
    return InvalidArgument("push source '" + r.source_ref + "' is not a ref");
  git_repository* raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_repository_open_bare(&raw, r.repo.c_str()), "open " + r.repo));
  RepoPtr repo(raw);
  git_oid oid;
  FS_RETURN_IF_ERROR(FromGit(git_reference_name_to_id(&oid, repo.get(), r.source_ref.c_str()), r.source_ref));
  if (!r.expected_sha.empty() && OidHex(oid) != r.expected_sha)
    return FailedPrecondition(r.source_ref + " names " + OidHex(oid) + ", not the candidate " + r.expected_sha);

  const auto [url, userinfo] = base::SplitCredentials(r.url);
  const std::string shown = RedactUrl(r.url);
  // A fresh payload per connection: the credential callback gives the userinfo once per payload.
  auto payload = [&, url = url, userinfo = userinfo] {
    PushPayload p;
    p.auth.userinfo = userinfo;
    p.auth.origin = OriginOf(url);
    p.auth.source = "given for push_url (push_secret_env)";
    p.dest_ref = r.dest_ref;
    return p;
  };
  // Forced: the destination is forkscope's own branch (checked above), never anyone's work.
  std::string refspec = "+" + r.source_ref + ":" + r.dest_ref;
  Status pushed;
  for (int attempt = 0;; ++attempt) {
    PushPayload once = payload();
    pushed = PushOnce(repo.get(), url, refspec, once, shown);
    if (pushed.ok()) return pushed;
    // A refused update may be the same push landing twice: a push cut off by a kill that the server
    // still finishes holds the ref's lock while the retry comes. The branch holding the commit is success;
    // else the push is tried again, twice, after 1 s and 2 s.
    PushPayload check = payload();
    auto there = AdvertisedOid(repo.get(), url, check, r.dest_ref, shown);
    if (there.ok() && *there == OidHex(oid)) {
      base::Log(base::LogArea::kGit)->info("push refused but the remote holds it ref={} sha={}", r.dest_ref, *there);
      return Status::Ok();
    }
    if (attempt == 2 || pushed.code() == StatusCode::kInvalidArgument) break;
    base::Log(base::LogArea::kGit)
        ->info("push retried ref={} attempt={} error={}", r.dest_ref, attempt + 1,
               base::ScrubSecret(pushed.message(), userinfo));
    std::this_thread::sleep_for(std::chrono::seconds(1 << attempt));
  }
  return Status(pushed.code(), base::ScrubSecret(pushed.message(), userinfo));
}

}  // namespace forkscope::analyzer::git
