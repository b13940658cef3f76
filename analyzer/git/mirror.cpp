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

#include "analyzer/git/fetch_internal.h"
#include "analyzer/git/handles.h"
#include "base/text.h"
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

// url has no credentials (it is written to the mirror's config); userinfo is handed to git on demand.
Status Fetch(const std::string& url, const std::string& userinfo, const std::string& path,
             const MirrorOptions& options, FetchStats* stats) {
  git_repository* raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_repository_open_bare(&raw, path.c_str()), "open mirror " + path));
  RepoPtr repo(raw);
  // origin's URL follows the source, so the mirror stays one the git CLI can fetch.
  if (ConfiguredRemoteUrl(repo.get(), "origin") != url)
    FS_RETURN_IF_ERROR(FromGit(git_remote_set_url(repo.get(), "origin", url.c_str()), "set mirror url"));
  RemoteFetch f;
  f.url = url;
  f.userinfo = userinfo;
  f.refspecs = {kMirrorRefspecHeads, kMirrorRefspecTags};
  f.head_ref = "HEAD";
  return FetchRemote(repo.get(), f, options, stats);
}

// A mirror "clone": a bare repository whose origin maps every branch and tag onto itself, then a
// fetch. (git_clone with a custom refspec leaves HEAD at an unborn master; this sets it from the
// remote's default branch.)
Status Clone(const std::string& url, const std::string& userinfo, const std::string& path,
             const MirrorOptions& options, FetchStats* stats) {
  git_repository_init_options io = GIT_REPOSITORY_INIT_OPTIONS_INIT;
  io.flags = GIT_REPOSITORY_INIT_BARE | GIT_REPOSITORY_INIT_MKPATH;
  git_repository* raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_repository_init_ext(&raw, path.c_str(), &io), "init mirror " + path));
  RepoPtr repo(raw);
  git_remote_create_options ro = GIT_REMOTE_CREATE_OPTIONS_INIT;
  ro.repository = repo.get();
  ro.name = "origin";
  ro.fetchspec = kMirrorRefspecHeads;
  ro.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF;  // see AnonymousRemote
  git_remote* rraw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_remote_create_with_opts(&rraw, url.c_str(), &ro), "mirror remote"));
  RemotePtr remote(rraw);
  FS_RETURN_IF_ERROR(FromGit(git_remote_add_fetch(repo.get(), "origin", kMirrorRefspecTags), "mirror refspec"));
  // A local source on this filesystem: its object files are linked, and the fetch only writes refs.
  if (const std::string src = LocalGitDir(url); !src.empty()) stats->linked_files = LinkObjectFiles(src, path);
  return Fetch(url, userinfo, path, options, stats);
}

}  // namespace

const char* PhaseName(TransferPhase phase) {
  switch (phase) {
    case TransferPhase::kReceiving: return "receiving objects";
    case TransferPhase::kResolving: return "resolving deltas";
    case TransferPhase::kCheckingOut: return "checking out";
    case TransferPhase::kConsolidating: return "consolidating packs";
  }
  return "";
}

int TransferProgress::PhasePercent() const {
  if (phase == TransferPhase::kResolving) {
    if (total_deltas) return static_cast<int>(100.0 * indexed_deltas / total_deltas);
    return indexed_objects >= total_objects ? 100 : 0;
  }
  return total_objects ? static_cast<int>(100.0 * received_objects / total_objects) : 0;
}

int TransferProgress::Percent() const {
  if (phase == TransferPhase::kCheckingOut || phase == TransferPhase::kConsolidating) return PhasePercent();
  if (total_objects == 0) return 0;
  // Receiving counts for 80%, resolving deltas for the rest. libgit2 counts the deltas only once every
  // object is in, so a received pack is at 80% until every object is indexed: never 100% then 80%.
  if (received_objects < total_objects) return static_cast<int>(80.0 * received_objects / total_objects);
  if (indexed_objects >= total_objects) return 100;
  const double idx = total_deltas ? static_cast<double>(indexed_deltas) / total_deltas : 0.0;
  return static_cast<int>(80.0 + 20.0 * idx);
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
  return (fs::path(data_dir) / "mirrors" / (slug + "-" + base::Fnv1a64Hex(url).substr(0, 10) + ".git")).string();
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
    FS_RETURN_IF_ERROR(Fetch(url, userinfo, result.path, options, &result.stats));
    return result;
  }
  fs::create_directories(fs::path(result.path).parent_path(), ec);
  if (ec) return Unavailable("cannot create " + fs::path(result.path).parent_path().string() + ": " + ec.message());
  // Clone into a temporary name, then rename: a failed clone never leaves a half mirror behind.
  std::string tmp = result.path + ".tmp";
  fs::remove_all(tmp, ec);
  spdlog::info("mirror clone url={} path={}", RedactUrl(location), result.path);
  Status st = Clone(url, userinfo, tmp, options, &result.stats);
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
