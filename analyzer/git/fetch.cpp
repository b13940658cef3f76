// One fetch into a repository (fetch_internal.h): credentials callback, progress, transfer counters,
// and the hard links of a local first clone.

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "analyzer/git/credentials.h"
#include "analyzer/git/fetch_internal.h"
#include "analyzer/git/fetch_negotiate.h"
#include "base/log.h"
#include "base/url.h"

namespace forkscope::analyzer::git {
namespace fs = std::filesystem;
namespace {

struct CallbackPayload {
  const TransferOptions* options;
  std::string url;          // redacted: what progress reports name
  UrlAuth auth;             // the URL's credentials, given to git only when the server asks (credentials.h)
  Negotiation negotiation;  // what the fetch's negotiation did (fetch_negotiate.h)
};

// HTTP credentials from the URL's userinfo: configs keep the URL without them.
int OnCredentials(git_credential** out, const char* url, const char*, unsigned int allowed, void* payload) {
  return AcquireUrlCredentials(static_cast<CallbackPayload*>(payload)->auth, out, url, allowed);
}

// git:// and HTTP(S) fetches negotiate as git does, not as libgit2 1.5 does (fetch_negotiate.h).
int OnTransport(git_transport** out, git_remote* owner, void* payload) {
  return NegotiatingTransport(out, owner, &static_cast<CallbackPayload*>(payload)->negotiation);
}

int OnTransfer(const git_indexer_progress* stats, void* payload) {
  auto* p = static_cast<CallbackPayload*>(payload);
  if (!p->options->progress) return 0;
  TransferProgress tp;
  tp.url = p->url;
  tp.total_objects = stats->total_objects;
  tp.received_objects = stats->received_objects;
  tp.indexed_objects = stats->indexed_objects;
  tp.indexed_deltas = stats->indexed_deltas;
  tp.total_deltas = stats->total_deltas;
  tp.received_bytes = stats->received_bytes;
  // libgit2 counts the deltas to resolve only once every object is in: until then it is receiving.
  const bool received = stats->received_objects >= stats->total_objects;
  const bool indexed = stats->indexed_objects >= stats->total_objects;
  tp.phase = received && (!indexed || stats->total_deltas > 0) ? TransferPhase::kResolving : TransferPhase::kReceiving;
  return p->options->progress(tp) ? 0 : GIT_EUSER;
}

// Points head_ref at the remote's default branch (it may change upstream).
void RecordDefaultBranch(git_repository* repo, git_remote* remote, const RemoteFetch& f) {
  if (f.head_ref.empty()) return;
  git_buf buf = GIT_BUF_INIT;
  if (git_remote_default_branch(&buf, remote) == 0) {
    const std::string remote_head = buf.ptr;
    const std::string prefix = "refs/heads/";
    if (remote_head.rfind(prefix, 0) == 0) {
      const std::string target = f.heads_prefix + remote_head.substr(prefix.size());
      if (f.head_ref == "HEAD") {
        git_repository_set_head(repo, target.c_str());
      } else {
        git_reference* ref = nullptr;
        if (git_reference_symbolic_create(&ref, repo, f.head_ref.c_str(), target.c_str(), 1, "forkscope fetch") == 0)
          git_reference_free(ref);
      }
    }
  }
  git_buf_dispose(&buf);
}

bool IsHex(const std::string& s) { return s.find_first_not_of("0123456789abcdef") == std::string::npos; }

// Links src into dst unless dst exists. False when linking is refused (another filesystem, no right).
bool LinkOne(const fs::path& src, const fs::path& dst, int& linked) {
  if (::link(src.c_str(), dst.c_str()) == 0) {
    ++linked;
    return true;
  }
  return errno == EEXIST;
}

}  // namespace

Result<RemotePtr> AnonymousRemote(git_repository* repo, const std::string& url, const std::string& what) {
  git_remote_create_options opts = GIT_REMOTE_CREATE_OPTIONS_INIT;
  opts.repository = repo;
  opts.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF;
  git_remote* raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_remote_create_with_opts(&raw, url.c_str(), &opts), what));
  return RemotePtr(raw);
}

std::string ConfiguredRemoteUrl(git_repository* repo, const std::string& name) {
  git_config* raw = nullptr;
  if (git_repository_config_snapshot(&raw, repo) < 0) return "";
  ConfigPtr config(raw);
  const char* url = nullptr;
  const std::string key = "remote." + name + ".url";
  return git_config_get_string(&url, config.get(), key.c_str()) == 0 && url ? url : "";
}

Status FetchRemote(git_repository* repo, const RemoteFetch& f, const TransferOptions& options, FetchStats* stats) {
  FS_ASSIGN_OR_RETURN(RemotePtr remote, AnonymousRemote(repo, f.url, "remote"));
  CallbackPayload payload{&options, base::RedactUrl(base::WithUserinfo(f.url, f.userinfo)), {}, {}};
  payload.auth.userinfo = f.userinfo;
  payload.auth.origin = OriginOf(f.url);
  git_fetch_options opts = GIT_FETCH_OPTIONS_INIT;
  opts.callbacks.transfer_progress = OnTransfer;
  opts.callbacks.credentials = OnCredentials;
  opts.callbacks.transport = OnTransport;
  opts.callbacks.payload = &payload;
  opts.prune = GIT_FETCH_PRUNE;
  // Tags come through the refspecs only: auto-followed tags would land under refs/tags/ of the whole
  // repository, outside the namespace the refspecs name.
  opts.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
  std::vector<char*> specs;
  for (const auto& s : f.refspecs) specs.push_back(const_cast<char*>(s.c_str()));
  git_strarray arr{specs.data(), specs.size()};
  FS_RETURN_IF_ERROR(FromGit(git_remote_fetch(remote.get(), &arr, &opts, "forkscope fetch"), "fetch " + payload.url));
  const git_indexer_progress* received = git_remote_stats(remote.get());
  if (payload.negotiation.ran)
    base::Log(base::LogArea::kGit)
        ->debug("fetch negotiated url={} rounds={} haves={} common={} ready={} received_objects={}", payload.url,
                payload.negotiation.rounds, payload.negotiation.haves, payload.negotiation.common,
                payload.negotiation.ready, received->received_objects);
  if (stats) {
    const git_indexer_progress* s = received;
    stats->fetched = true;
    stats->total_objects = s->total_objects;
    stats->received_objects = s->received_objects;
    stats->local_objects = s->local_objects;
    stats->received_bytes = s->received_bytes;
  }
  RecordDefaultBranch(repo, remote.get(), f);
  return Status::Ok();
}

std::string LocalGitDir(const std::string& location) {
  std::string path = location;
  if (path.rfind("file://", 0) == 0)
    path = path.substr(7);
  else if (path.find("://") != std::string::npos || path.empty() || path[0] != '/')
    return "";
  std::error_code ec;
  if (fs::exists(fs::path(path) / ".git" / "objects", ec)) return (fs::path(path) / ".git").string();
  if (fs::exists(fs::path(path) / "objects", ec) && fs::exists(fs::path(path) / "HEAD", ec)) return path;
  return "";
}

int LinkObjectFiles(const std::string& src_git_dir, const std::string& dst_git_dir) {
  const fs::path src = fs::path(src_git_dir) / "objects";
  const fs::path dst = fs::path(dst_git_dir) / "objects";
  std::error_code ec;
  int linked = 0;
  // Packs: the .pack before its .idx (a reader finds a pack by its index), then any .rev.
  for (const char* ext : {".pack", ".idx", ".rev"}) {
    for (fs::directory_iterator it(src / "pack", ec), end; !ec && it != end; it.increment(ec)) {
      const fs::path& p = it->path();
      if (p.extension() != ext) continue;
      fs::create_directories(dst / "pack", ec);
      if (!LinkOne(p, dst / "pack" / p.filename(), linked)) return linked;
    }
  }
  for (fs::directory_iterator it(src, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string dir = it->path().filename().string();
    if (dir.size() != 2 || !IsHex(dir) || !it->is_directory()) continue;
    std::error_code ec2;
    for (fs::directory_iterator obj(it->path(), ec2), oend; !ec2 && obj != oend; obj.increment(ec2)) {
      fs::create_directories(dst / dir, ec);
      if (!LinkOne(obj->path(), dst / dir / obj->path().filename(), linked)) return linked;
    }
  }
  return linked;
}

}  // namespace forkscope::analyzer::git
