#include "analyzer/git/mirror.h"

#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <system_error>

#include "analyzer/git/credentials.h"
#include "analyzer/git/handles.h"
#include "base/url.h"

namespace forkscope::analyzer::git {
namespace fs = std::filesystem;
namespace {

constexpr const char* kMirrorRefspecHeads = "+refs/heads/*:refs/heads/*";
constexpr const char* kMirrorRefspecTags = "+refs/tags/*:refs/tags/*";

bool IsUrl(const std::string& s) {
  return s.find("://") != std::string::npos || (s.find('@') != std::string::npos && s.find(':') != std::string::npos &&
                                               s.find('/') != 0);
}

uint64_t Fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}

struct CallbackPayload {
  const MirrorOptions* options;
  std::string url;  // redacted: what progress reports name
  UrlAuth auth;     // the URL's credentials, given to git only when the server asks
};

// HTTP credentials from the URL's userinfo: the mirror's config keeps the URL without them.
int OnCredentials(git_credential** out, const char* url, const char*, unsigned int allowed, void* payload) {
  return AcquireUrlCredentials(static_cast<CallbackPayload*>(payload)->auth, out, url, allowed);
}

int OnTransfer(const git_indexer_progress* stats, void* payload) {
  auto* p = static_cast<CallbackPayload*>(payload);
  if (!p->options->progress) return 0;
  TransferProgress tp;
  tp.url = p->url;
  tp.total_objects = stats->total_objects;
  tp.received_objects = stats->received_objects;
  tp.indexed_deltas = stats->indexed_deltas;
  tp.total_deltas = stats->total_deltas;
  tp.received_bytes = stats->received_bytes;
  return p->options->progress(tp) ? 0 : GIT_EUSER;
}

void SetCallbacks(git_remote_callbacks& cb, CallbackPayload& payload) {
  cb.transfer_progress = OnTransfer;
  cb.credentials = OnCredentials;
  cb.payload = &payload;
}

// Points the mirror's HEAD at the remote's default branch (it may change upstream).
void UpdateHead(git_repository* repo, git_remote* remote) {
  git_buf buf = GIT_BUF_INIT;
  if (git_remote_default_branch(&buf, remote) == 0) {
    git_repository_set_head(repo, buf.ptr);
  }
  git_buf_dispose(&buf);
}

// url has no credentials (it is written to the mirror's config); userinfo is handed to git on demand.
Status Fetch(const std::string& url, const std::string& userinfo, const std::string& path,
             const MirrorOptions& options) {
  git_repository* raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_repository_open_bare(&raw, path.c_str()), "open mirror " + path));
  RepoPtr repo(raw);
  git_remote* rraw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_remote_lookup(&rraw, repo.get(), "origin"), "mirror remote"));
  RemotePtr remote(rraw);
  if (std::string(git_remote_url(remote.get())) != url) {
    FS_RETURN_IF_ERROR(FromGit(git_remote_set_url(repo.get(), "origin", url.c_str()), "set mirror url"));
    git_remote* again = nullptr;
    FS_RETURN_IF_ERROR(FromGit(git_remote_lookup(&again, repo.get(), "origin"), "mirror remote"));
    remote.reset(again);
  }
  CallbackPayload payload{&options, RedactUrl(base::WithUserinfo(url, userinfo)), {}};
  payload.auth.userinfo = userinfo;
  payload.auth.origin = OriginOf(url);
  git_fetch_options opts = GIT_FETCH_OPTIONS_INIT;
  SetCallbacks(opts.callbacks, payload);
  opts.prune = GIT_FETCH_PRUNE;
  opts.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_ALL;
  FS_RETURN_IF_ERROR(FromGit(git_remote_fetch(remote.get(), nullptr, &opts, "forkscope fetch"),
                             "fetch " + payload.url));
  UpdateHead(repo.get(), remote.get());
  return Status::Ok();
}

// A mirror "clone": a bare repository whose origin maps every branch and tag onto itself, then a
// fetch. (git_clone with a custom refspec leaves HEAD at an unborn master; this sets it from the
// remote's default branch.)
Status Clone(const std::string& url, const std::string& userinfo, const std::string& path,
             const MirrorOptions& options) {
  git_repository_init_options io = GIT_REPOSITORY_INIT_OPTIONS_INIT;
  io.flags = GIT_REPOSITORY_INIT_BARE | GIT_REPOSITORY_INIT_MKPATH;
  git_repository* raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_repository_init_ext(&raw, path.c_str(), &io), "init mirror " + path));
  RepoPtr repo(raw);
  git_remote* rraw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_remote_create_with_fetchspec(&rraw, repo.get(), "origin", url.c_str(),
                                                              kMirrorRefspecHeads),
                             "mirror remote"));
  RemotePtr remote(rraw);
  FS_RETURN_IF_ERROR(FromGit(git_remote_add_fetch(repo.get(), "origin", kMirrorRefspecTags), "mirror refspec"));
  return Fetch(url, userinfo, path, options);
}

}  // namespace

int TransferProgress::Percent() const {
  if (total_objects == 0) return 0;
  // Receiving counts for 80%, resolving deltas for the rest.
  double recv = static_cast<double>(received_objects) / total_objects;
  double idx = total_deltas ? static_cast<double>(indexed_deltas) / total_deltas : recv;
  return static_cast<int>(80.0 * recv + 20.0 * idx);
}

std::string RedactUrl(const std::string& url) { return base::RedactUrl(url); }

Result<std::string> NormalizeLocation(const std::string& location) {
  if (location.empty()) return InvalidArgument("empty repository location");
  if (location.find_first_of("\n\r\t") != std::string::npos)
    return InvalidArgument("repository location contains control characters");
  if (IsUrl(location)) {
    static const char* kSchemes[] = {"https://", "http://", "ssh://", "git://", "file://"};
    bool known = location.find("://") == std::string::npos;  // scp-like user@host:path
    for (const char* s : kSchemes) known = known || location.rfind(s, 0) == 0;
    if (!known) return InvalidArgument("unsupported URL scheme in '" + RedactUrl(location) + "'");
    return location;
  }
  std::error_code ec;
  fs::path p = fs::absolute(location, ec);
  if (ec || !fs::exists(p, ec)) return NotFound("no repository at '" + location + "'");
  return p.lexically_normal().string();
}

std::string MirrorPathFor(const std::string& data_dir, const std::string& location) {
  // Named by the URL without credentials: a password never becomes a file name, and a credential
  // change keeps the mirror.
  const std::string url = base::SplitCredentials(location).url;
  std::string slug;
  std::string tail = url.size() > 48 ? url.substr(url.size() - 48) : url;
  for (char c : tail) slug += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '_';
  while (!slug.empty() && slug.front() == '_') slug.erase(slug.begin());
  char hash[17];
  snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(Fnv1a(url)));
  return (fs::path(data_dir) / "mirrors" / (slug + "-" + std::string(hash, 10) + ".git")).string();
}

MirrorLock::MirrorLock(const std::string& mirror_path) {
  fd_ = ::open((mirror_path + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ >= 0 && ::flock(fd_, LOCK_EX) != 0) {
    ::close(fd_);
    fd_ = -1;
  }
}

MirrorLock::~MirrorLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

Result<MirrorResult> SyncMirror(const std::string& location, const MirrorOptions& options) {
  GlobalInit();
  if (options.allow_foreign_owner) git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 0);
  const auto [url, userinfo] = base::SplitCredentials(location);
  MirrorResult result;
  result.path = MirrorPathFor(options.data_dir, url);
  std::error_code ec;
  fs::create_directories(fs::path(result.path).parent_path(), ec);
  MirrorLock lock(result.path);
  if (!lock.locked()) return Unavailable("cannot lock mirror " + result.path);
  if (fs::exists(fs::path(result.path) / "HEAD", ec)) {
    spdlog::debug("mirror fetch url={} path={}", RedactUrl(location), result.path);
    FS_RETURN_IF_ERROR(Fetch(url, userinfo, result.path, options));
    return result;
  }
  fs::create_directories(fs::path(result.path).parent_path(), ec);
  if (ec) return Unavailable("cannot create " + fs::path(result.path).parent_path().string() + ": " + ec.message());
  // Clone into a temporary name, then rename: a failed clone never leaves a half mirror behind.
  std::string tmp = result.path + ".tmp";
  fs::remove_all(tmp, ec);
  spdlog::info("mirror clone url={} path={}", RedactUrl(location), result.path);
  Status st = Clone(url, userinfo, tmp, options);
  if (!st.ok()) {
    fs::remove_all(tmp, ec);
    return st;
  }
  fs::rename(tmp, result.path, ec);
  if (ec) return Internal("cannot move mirror into place: " + ec.message());
  result.created = true;
  return result;
}

}  // namespace forkscope::analyzer::git
