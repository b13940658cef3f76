#include "analyzer/git/handles.h"

#include <mutex>

#include "analyzer/git/tls.h"

namespace forkscope::analyzer::git {

void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] {
    // The CA bundle is parsed on the first TLS connection, not here: most commands never make one.
    InitLibgit2WithoutTrustStore();
    // Like the git CLI, trust the object database's contents instead of re-hashing every object
    // read (a measurable share of a large diff); mirrors are fetched with full verification.
    git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
    // Bounded memory (docs/performance.md): pack files are read through mmap windows of at most
    // kWindowSize, at most kMappedLimit of them mapped at once and at most kOpenPacks pack files open
    // (the least recently used are unmapped and closed first); decoded objects are cached up to
    // kCacheLimit. libgit2's 64-bit defaults are 1 GiB windows, 8 GiB mapped, unlimited files, 256 MiB.
    constexpr size_t kWindowSize = 32u << 20;
    constexpr size_t kMappedLimit = 128u << 20;
    constexpr size_t kOpenPacks = 128;
    constexpr ssize_t kCacheLimit = 64 << 20;
    git_libgit2_opts(GIT_OPT_SET_MWINDOW_SIZE, kWindowSize);
    git_libgit2_opts(GIT_OPT_SET_MWINDOW_MAPPED_LIMIT, kMappedLimit);
    git_libgit2_opts(GIT_OPT_SET_MWINDOW_FILE_LIMIT, kOpenPacks);
    git_libgit2_opts(GIT_OPT_SET_CACHE_MAX_SIZE, kCacheLimit);
  });
}

Status FromGit(int rc, const std::string& what) {
  if (rc >= 0) return Status::Ok();
  const git_error* e = git_error_last();
  std::string detail = e && e->message ? e->message : "unknown libgit2 error";
  std::string msg = what + ": " + detail;
  switch (rc) {
    case GIT_ENOTFOUND:
      return NotFound(msg);
    case GIT_EEXISTS:
      return AlreadyExists(msg);
    case GIT_EINVALIDSPEC:
      return InvalidArgument(msg);
    case GIT_EAMBIGUOUS:
      return InvalidArgument(msg);
    case GIT_EUSER:
      return Cancelled(msg);
    case GIT_EOWNER:
      return FailedPrecondition(msg +
                                " (the repository is owned by another user; re-run with "
                                "--allow-foreign-owner or list it in safe_directories)");
    default:
      break;
  }
  if (e && (e->klass == GIT_ERROR_NET || e->klass == GIT_ERROR_SSH || e->klass == GIT_ERROR_HTTP ||
            e->klass == GIT_ERROR_SSL))
    return Unavailable(msg);
  return Internal(msg);
}

std::string OidHex(const git_oid& oid) {
  char buf[GIT_OID_HEXSZ + 1];
  git_oid_tostr(buf, sizeof buf, &oid);
  return buf;
}

}  // namespace forkscope::analyzer::git
