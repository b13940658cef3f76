// Submodules of a checked-out commit: each gitlink's url from the commit's .gitmodules, resolved like
// git resolves relative urls, held to the caller's URL policy, fetched as the upstream of its own fork
// network under <data_dir>/networks (no fetch at all when the network already holds the recorded commit)
// and written into its directory, recursively. Progress goes to CheckoutOptions::log.
#include <filesystem>
#include <map>
#include <string_view>
#include <system_error>

#include "analyzer/git/checkout_internal.h"
#include "analyzer/git/fetch_internal.h"
#include "analyzer/git/handles.h"
#include "analyzer/git/network.h"
#include "analyzer/git/transfer.h"

namespace forkscope::analyzer::git {
namespace fs = std::filesystem;
namespace checkout_internal {
namespace {

// .gitmodules of the written tree: submodule path -> configured url ("" when the entry has none).
Result<std::map<std::string, std::string>> ReadGitmodules(const std::string& dest) {
  std::map<std::string, std::string> urls;
  const std::string file = dest + "/.gitmodules";
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return urls;
  git_config* raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_config_open_ondisk(&raw, file.c_str()), "read .gitmodules"));
  ConfigPtr config(raw);
  std::map<std::string, std::string> names;  // submodule name -> path
  // Every entry, filtered here: git_config_foreach_match leaks its regex match data on each entry that
  // does not match in libgit2 1.5 (AnonymousRemote, fetch_internal.h).
  auto collect = [](const git_config_entry* entry, void* payload) {
    const std::string_view key = entry->name;  // submodule.<name>.path
    constexpr std::string_view kPrefix = "submodule.", kSuffix = ".path";
    if (key.size() > kPrefix.size() + kSuffix.size() && key.starts_with(kPrefix) && key.ends_with(kSuffix)) {
      auto* out = static_cast<std::map<std::string, std::string>*>(payload);
      (*out)[std::string(key.substr(kPrefix.size(), key.size() - kPrefix.size() - kSuffix.size()))] = entry->value;
    }
    return 0;
  };
  FS_RETURN_IF_ERROR(FromGit(git_config_foreach(config.get(), collect, &names), "read .gitmodules"));
  for (const auto& [name, path] : names) {
    git_buf buf = GIT_BUF_INIT;
    std::string key = "submodule." + name + ".url";
    urls[path] = git_config_get_string_buf(&buf, config.get(), key.c_str()) == 0 ? std::string(buf.ptr) : "";
    git_buf_dispose(&buf);
  }
  return urls;
}

// The URL relative submodule urls resolve against: the caller's, else the superproject's origin.
std::string BaseUrl(git_repository* repo, const std::string& repo_path, const CheckoutOptions& options) {
  if (!options.superproject_url.empty()) return options.superproject_url;
  const std::string origin = ConfiguredRemoteUrl(repo, "origin");
  return origin.empty() ? repo_path : origin;
}

bool HasCommit(const std::string& mirror, const git_oid& commit) {
  std::error_code ec;
  if (!fs::exists(fs::path(mirror) / "HEAD", ec)) return false;
  git_repository* raw = nullptr;
  if (git_repository_open_bare(&raw, mirror.c_str()) != 0) return false;
  RepoPtr repo(raw);
  git_odb* odb_raw = nullptr;
  if (git_repository_odb(&odb_raw, repo.get()) != 0) return false;
  OdbPtr odb(odb_raw);
  return git_odb_exists(odb.get(), &commit) == 1;
}

void Log(const CheckoutOptions& options, const std::string& line) {
  if (options.log) options.log(line);
}

// Fetches url into its network unless the network already holds commit; returns the network's path.
Result<std::string> NetworkWith(const std::string& where, const std::string& url, const git_oid& commit,
                                const CheckoutOptions& options) {
  const std::string mirror = NetworkPathFor(options.data_dir, url);
  const std::string sha = OidHex(commit).substr(0, 12);
  if (HasCommit(mirror, commit)) {
    Log(options, where + ": " + sha + " already fetched, nothing to fetch");
    return mirror;
  }
  Log(options, where + ": fetching " + RedactUrl(url) + " for " + sha);
  NetworkSyncOptions no;
  TransferOptions& mo = no.mirror;
  mo.data_dir = options.data_dir;
  mo.allow_foreign_owner = options.allow_foreign_owner;
  int reported = -1;
  mo.progress = [&](const TransferProgress& p) {
    const int pct = p.Percent();
    if (pct / 10 != reported / 10) {
      reported = pct;
      Log(options, where + ": " + std::to_string(pct) + "% (" + std::to_string(p.received_objects) + "/" +
                       std::to_string(p.total_objects) + " objects)");
    }
    return true;
  };
  FS_ASSIGN_OR_RETURN(NetworkSyncResult result, SyncUpstream(url, no));
  if (!HasCommit(result.view.path, commit))
    return NotFound("commit " + sha + " is on no branch or tag of " + RedactUrl(url));
  return result.view.path;
}

Status CheckoutOne(const Gitlink& link, const std::string& configured_url, const std::string& base,
                   const std::string& dest, const CheckoutOptions& options, const Level& level) {
  const std::string where = "submodule " + level.prefix + link.path;
  auto fail = [&where](const Status& st) { return Status(st.code(), where + ": " + st.message()); };
  if (configured_url.empty()) return FailedPrecondition(where + ": .gitmodules names no url for it");
  const std::string url = ResolveSubmoduleUrl(base, configured_url);
  if (options.allow_url) {
    Status allowed = options.allow_url(url);
    if (!allowed.ok()) return fail(allowed);
  }
  Result<std::string> mirror = NetworkWith(where, url, link.commit, options);
  if (!mirror.ok()) return fail(mirror.status());
  CheckoutOptions nested = options;
  nested.superproject_url = url;
  // Errors from deeper down already name their submodule by its whole path.
  FS_RETURN_IF_ERROR(CheckoutInto(*mirror, link.commit, dest + "/" + link.path, nested,
                                  Level{level.depth + 1, level.prefix + link.path + "/"}));
  Log(options, where + ": checked out " + OidHex(link.commit).substr(0, 12));
  return Status::Ok();
}

}  // namespace

Status CheckoutSubmodules(git_repository* repo, const std::string& repo_path, const std::string& dest,
                          const std::vector<Gitlink>& gitlinks, const CheckoutOptions& options, const Level& level) {
  if (level.depth >= options.max_depth)
    return FailedPrecondition("submodules nested deeper than " + std::to_string(options.max_depth) + " levels");
  if (options.data_dir.empty()) return InvalidArgument("submodules need a data directory for their mirrors");
  FS_ASSIGN_OR_RETURN(auto urls, ReadGitmodules(dest));
  const std::string base = BaseUrl(repo, repo_path, options);
  Log(options,
      std::to_string(gitlinks.size()) + " submodule(s) in " +
          (level.prefix.empty() ? std::string("the work tree") : level.prefix.substr(0, level.prefix.size() - 1)));
  for (const Gitlink& link : gitlinks) {
    auto it = urls.find(link.path);
    FS_RETURN_IF_ERROR(CheckoutOne(link, it == urls.end() ? "" : it->second, base, dest, options, level));
  }
  return Status::Ok();
}

}  // namespace checkout_internal

std::string ResolveSubmoduleUrl(const std::string& base, const std::string& url) {
  if (url.rfind("./", 0) != 0 && url.rfind("../", 0) != 0) return url;
  std::string resolved = base;
  while (!resolved.empty() && resolved.back() == '/') resolved.pop_back();
  std::string rest = url;
  // scp-like bases ("git@host:owner/repo") separate the host with ':'; the path climbs over '/'.
  const size_t scheme = resolved.find("://");
  const size_t floor_at = scheme != std::string::npos ? resolved.find('/', scheme + 3) : std::string::npos;
  while (true) {
    if (rest.rfind("./", 0) == 0) {
      rest.erase(0, 2);
    } else if (rest.rfind("../", 0) == 0) {
      rest.erase(0, 3);
      size_t cut = resolved.find_last_of(scheme == std::string::npos ? "/:" : "/");
      if (cut == std::string::npos || (floor_at != std::string::npos && cut < floor_at)) {
        resolved.clear();  // climbed out of the base: git treats the rest as relative to nothing
        break;
      }
      resolved.resize(cut + (resolved[cut] == ':' ? 1 : 0));
    } else {
      break;
    }
  }
  if (resolved.empty()) return rest;
  const char last = resolved.back();
  return last == ':' ? resolved + rest : resolved + "/" + rest;
}

}  // namespace forkscope::analyzer::git
