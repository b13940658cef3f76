#include "analyzer/git/network.h"

#include <cctype>
#include <filesystem>
#include <system_error>

#include "analyzer/git/compact.h"
#include "analyzer/git/fetch_internal.h"
#include "analyzer/git/handles.h"
#include "base/log.h"
#include "base/text.h"
#include "base/url.h"

namespace forkscope::analyzer::git {
namespace fs = std::filesystem;
namespace {

constexpr const char* kUpstreamRefs = "refs/upstream/";
constexpr const char* kForksRefs = "refs/forks/";

bool ValidNamespace(const std::string& n) {
  if (n.empty() || n.size() > 64 || !std::isalnum(static_cast<unsigned char>(n[0]))) return false;
  for (unsigned char c : n)
    if (!std::isalnum(c) && c != '.' && c != '_' && c != '-') return false;
  if (n.find("..") != std::string::npos || n.back() == '.') return false;
  return n.size() < 5 || n.compare(n.size() - 5, 5, ".lock") != 0;
}

std::string ForkRefs(const std::string& ns) { return std::string(kForksRefs) + ns + "/"; }

// The refspecs of one side: the remote's branches and tags under prefix, nothing else.
std::vector<std::string> SideRefspecs(const std::string& prefix) {
  return {"+refs/heads/*:" + prefix + "heads/*", "+refs/tags/*:" + prefix + "tags/*"};
}

Result<RepoPtr> OpenOrInit(const std::string& path, bool& created) {
  git_repository* raw = nullptr;
  std::error_code ec;
  if (fs::exists(fs::path(path) / "HEAD", ec)) {
    FS_RETURN_IF_ERROR(FromGit(git_repository_open_bare(&raw, path.c_str()), "open network " + path));
    return RepoPtr(raw);
  }
  git_repository_init_options io = GIT_REPOSITORY_INIT_OPTIONS_INIT;
  io.flags = GIT_REPOSITORY_INIT_BARE | GIT_REPOSITORY_INIT_MKPATH;
  FS_RETURN_IF_ERROR(FromGit(git_repository_init_ext(&raw, path.c_str(), &io), "init network " + path));
  created = true;
  return RepoPtr(raw);
}

bool HasRefs(git_repository* repo, const std::string& prefix) {
  git_reference_iterator* raw = nullptr;
  const std::string glob = prefix + "*";
  if (git_reference_iterator_glob_new(&raw, repo, glob.c_str()) < 0) return false;
  const char* name = nullptr;
  const bool any = git_reference_next_name(&name, raw) == 0;
  git_reference_iterator_free(raw);
  return any;
}

// Fetches one side (url with its credentials) into prefix; a first fetch from a local source links
// its object files first.
Status FetchSide(git_repository* repo, const std::string& repo_path, const std::string& location,
                 const std::string& prefix, const std::vector<std::string>& extra_specs, const TransferOptions& options,
                 FetchStats* stats) {
  const auto [url, userinfo] = base::SplitCredentials(location);
  if (!HasRefs(repo, prefix)) {
    base::Log(base::LogArea::kGit)
        ->info("network first fetch url={} refs={} path={}", RedactUrl(location), prefix, repo_path);
    if (const std::string src = LocalGitDir(url); !src.empty()) stats->linked_files = LinkObjectFiles(src, repo_path);
  }
  RemoteFetch f;
  f.url = url;
  f.userinfo = userinfo;
  f.refspecs = SideRefspecs(prefix);
  f.refspecs.insert(f.refspecs.end(), extra_specs.begin(), extra_specs.end());
  f.head_ref = prefix + "HEAD";
  f.heads_prefix = prefix + "heads/";
  return FetchRemote(repo, f, options, stats);
}

Status DropRefs(git_repository* repo, const std::string& prefix) {
  git_reference_iterator* raw = nullptr;
  const std::string glob = prefix + "*";
  FS_RETURN_IF_ERROR(FromGit(git_reference_iterator_glob_new(&raw, repo, glob.c_str()), "list " + prefix));
  std::vector<std::string> names;
  const char* name = nullptr;
  while (git_reference_next_name(&name, raw) == 0) names.emplace_back(name);
  git_reference_iterator_free(raw);
  for (const auto& n : names) {
    int rc = git_reference_remove(repo, n.c_str());
    if (rc < 0 && rc != GIT_ENOTFOUND) return FromGit(rc, "delete " + n);
  }
  return Status::Ok();
}

}  // namespace

std::string NetworkPathFor(const std::string& data_dir, const std::string& upstream_location) {
  const std::string mirror = LegacyMirrorPathFor(data_dir, upstream_location);  // <data_dir>/mirrors/<name>
  return (fs::path(data_dir) / "networks" / fs::path(mirror).filename()).string();
}

Result<std::string> ForkNamespace(const std::string& fork_name, const std::string& fork_location) {
  if (!fork_name.empty()) {
    if (!ValidNamespace(fork_name)) return InvalidArgument("fork name '" + fork_name + "' cannot name refs");
    return fork_name;
  }
  return "url-" + base::Fnv1a64Hex(base::SplitCredentials(fork_location).url).substr(0, 12);
}

Result<NetworkView> NetworkFor(const std::string& data_dir, const std::string& upstream_location,
                               const std::string& fork_name, const std::string& fork_location) {
  FS_ASSIGN_OR_RETURN(std::string ns, ForkNamespace(fork_name, fork_location));
  NetworkView v;
  v.path = NetworkPathFor(data_dir, upstream_location);
  v.refs.fork = ForkRefs(ns);
  v.refs.upstream = kUpstreamRefs;
  return v;
}

Result<NetworkSyncResult> SyncNetwork(const std::string& upstream_location, const std::string& fork_location,
                                      const std::string& fork_name, const NetworkSyncOptions& options) {
  GlobalInit();
  if (options.mirror.allow_foreign_owner) git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 0);
  NetworkSyncResult r;
  FS_ASSIGN_OR_RETURN(r.view, NetworkFor(options.mirror.data_dir, upstream_location, fork_name, fork_location));
  std::error_code ec;
  fs::create_directories(fs::path(r.view.path).parent_path(), ec);
  if (ec) return Unavailable("cannot create " + fs::path(r.view.path).parent_path().string() + ": " + ec.message());
  RepoLock lock(r.view.path);
  if (!lock.locked()) return Unavailable("cannot lock network " + r.view.path);
  FS_ASSIGN_OR_RETURN(RepoPtr repo, OpenOrInit(r.view.path, r.created));
  if (r.created)
    base::Log(base::LogArea::kGit)
        ->info("network created path={} upstream={}", r.view.path, RedactUrl(upstream_location));
  // Upstream first: the fork's fetch then negotiates against upstream's objects.
  if (options.fetch || !HasRefs(repo.get(), r.view.refs.upstream + "heads/"))
    FS_RETURN_IF_ERROR(
        FetchSide(repo.get(), r.view.path, upstream_location, r.view.refs.upstream, {}, options.mirror, &r.upstream));
  if (!fork_location.empty() && (options.fetch || !HasRefs(repo.get(), r.view.refs.fork + "heads/")))
    FS_RETURN_IF_ERROR(
        FetchSide(repo.get(), r.view.path, fork_location, r.view.refs.fork, {}, options.mirror, &r.fork));
  base::Log(base::LogArea::kGit)
      ->debug("network sync path={} fork={} upstream_objects={} fork_objects={}", r.view.path, r.view.refs.fork,
              r.upstream.received_objects, r.fork.received_objects);
  // Each fetch left a pack: past the limit they become one. A failure leaves the old packs, all valid;
  // a cancel (progress said stop, as it does for the fetches) ends the sync like a cancelled fetch.
  auto compact = CompactPacks(r.view.path, kNetworkPackLimit, kRetiredPackGrace, options.mirror.progress);
  if (compact.status().code() == StatusCode::kCancelled) return compact.status();
  if (!compact.ok())
    base::Log(base::LogArea::kGit)
        ->warn("network packs not consolidated path={} error={}", r.view.path, compact.status().message());
  return r;
}

Result<NetworkSyncResult> SyncUpstream(const std::string& location, const NetworkSyncOptions& options) {
  return SyncNetwork(location, "", "", options);
}

Result<std::set<std::string>> NetworkForks(const std::string& network_path) {
  GlobalInit();
  std::set<std::string> out;
  std::error_code ec;
  if (!fs::exists(fs::path(network_path) / "HEAD", ec)) return out;
  git_repository* raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_repository_open_bare(&raw, network_path.c_str()), "open network " + network_path));
  RepoPtr repo(raw);
  git_reference_iterator* it = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_reference_iterator_glob_new(&it, repo.get(), "refs/forks/*"), "list forks"));
  const char* name = nullptr;
  const std::string prefix = kForksRefs;
  while (git_reference_next_name(&name, it) == 0) {
    std::string rest = std::string(name).substr(prefix.size());
    out.insert(rest.substr(0, rest.find('/')));
  }
  git_reference_iterator_free(it);
  return out;
}

Status DropForkRefs(const std::string& network_path, const std::string& ns) {
  GlobalInit();
  if (!ValidNamespace(ns)) return InvalidArgument("fork namespace '" + ns + "' cannot name refs");
  std::error_code ec;
  if (!fs::exists(fs::path(network_path) / "HEAD", ec)) return Status::Ok();
  RepoLock lock(network_path);
  if (!lock.locked()) return Unavailable("cannot lock network " + network_path);
  git_repository* raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_repository_open_bare(&raw, network_path.c_str()), "open network " + network_path));
  RepoPtr repo(raw);
  FS_RETURN_IF_ERROR(DropRefs(repo.get(), ForkRefs(ns)));
  base::Log(base::LogArea::kGit)->info("network fork refs dropped path={} fork={}", network_path, ns);
  return Status::Ok();
}

Result<bool> MigrateMirrors(const std::string& data_dir, const std::string& upstream_location,
                            const std::string& fork_location, const std::string& fork_name) {
  GlobalInit();
  FS_ASSIGN_OR_RETURN(NetworkView v, NetworkFor(data_dir, upstream_location, fork_name, fork_location));
  const std::string old_fork = LegacyMirrorPathFor(data_dir, fork_location);
  const std::string old_upstream = LegacyMirrorPathFor(data_dir, upstream_location);
  std::error_code ec;
  if (!fs::exists(fs::path(old_fork) / "HEAD", ec)) return false;
  fs::create_directories(fs::path(v.path).parent_path(), ec);
  RepoLock lock(v.path);
  if (!lock.locked()) return Unavailable("cannot lock network " + v.path);
  bool created = false;
  FS_ASSIGN_OR_RETURN(RepoPtr repo, OpenOrInit(v.path, created));
  if (HasRefs(repo.get(), v.refs.fork)) return false;
  TransferOptions quiet{data_dir, false, {}};
  FetchStats stats;
  if (!HasRefs(repo.get(), v.refs.upstream) && fs::exists(fs::path(old_upstream) / "HEAD", ec))
    FS_RETURN_IF_ERROR(FetchSide(repo.get(), v.path, old_upstream, v.refs.upstream, {}, quiet, &stats));
  // The old fork mirror reads upstream's objects through objects/info/alternates; its candidates
  // come along under the fork's namespace.
  FS_RETURN_IF_ERROR(FetchSide(repo.get(), v.path, old_fork, v.refs.fork,
                               {"+refs/forkscope/candidates/*:" + v.refs.fork + "candidates/*"}, quiet, &stats));
  // The old mirrors' HEADs name their default branches (a local fetch records the remote's HEAD too).
  base::Log(base::LogArea::kGit)
      ->info("mirrors migrated into network path={} fork={} linked_files={}", v.path, v.refs.fork, stats.linked_files);
  return true;
}

}  // namespace forkscope::analyzer::git
