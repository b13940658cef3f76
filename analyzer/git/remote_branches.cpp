// ListRemoteBranches: a detached remote connected for fetch, its advertised refs read (git_remote_ls),
// disconnected; nothing is written anywhere.
#include "analyzer/git/remote_branches.h"

#include <git2.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "analyzer/git/credentials.h"
#include "analyzer/git/handles.h"
#include "analyzer/git/transfer.h"
#include "base/url.h"

namespace forkscope::analyzer::git {
namespace {

namespace fs = std::filesystem;

int OnCredentials(git_credential** out, const char* url, const char*, unsigned int allowed, void* payload) {
  return AcquireUrlCredentials(*static_cast<UrlAuth*>(payload), out, url, allowed);
}

bool IsUrl(const std::string& location) { return location.find("://") != std::string::npos; }

// A local path must hold a repository: libgit2's message for one that does not is a path lookup error.
Status CheckLocalRepository(const std::string& location) {
  std::string path = location.rfind("file://", 0) == 0 ? location.substr(7) : location;
  if (IsUrl(path)) return Status::Ok();
  std::error_code ec;
  if (!fs::exists(path, ec)) return NotFound("no such directory: " + path);
  if (!fs::is_directory(path, ec)) return NotFound(path + " is not a directory, so no git repository");
  git_repository* raw = nullptr;
  const int rc = git_repository_open_ext(&raw, path.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr);
  if (rc == GIT_EOWNER) return FromGit(rc, path);  // someone else's: libgit2 says whose and what to do
  if (rc < 0) return NotFound(path + " is no git repository (no .git directory, and not a bare repository)");
  git_repository_free(raw);
  return Status::Ok();
}

}  // namespace

bool IsMigrationBranchName(const std::string& branch) {
  std::string lower = branch;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return lower.find("paddle") != std::string::npos;
}

std::vector<std::string> MigrationBranchesFirst(std::vector<std::string> branches, const std::string& default_branch) {
  auto rank = [&default_branch](const std::string& b) {
    if (b == "paddle") return 0;
    if (IsMigrationBranchName(b)) return 1;
    return b == default_branch ? 2 : 3;
  };
  std::sort(branches.begin(), branches.end(), [&rank](const std::string& a, const std::string& b) {
    const int ra = rank(a), rb = rank(b);
    return ra != rb ? ra < rb : a < b;
  });
  branches.erase(std::unique(branches.begin(), branches.end()), branches.end());
  return branches;
}

std::string BranchListText(const std::vector<std::string>& ordered, size_t max) {
  if (ordered.empty()) return "it has no branches";
  std::string out = "its branches: ";
  for (size_t i = 0; i < ordered.size() && i < max; ++i) {
    if (i > 0) out += i + 1 == ordered.size() ? " and " : ", ";
    out += ordered[i];
  }
  if (ordered.size() > max) out += " and " + std::to_string(ordered.size() - max) + " more";
  return out;
}

Status RequireBranch(const RemoteBranches& found, const std::string& side, const std::string& branch) {
  if (std::find(found.branches.begin(), found.branches.end(), branch) != found.branches.end()) return Status::Ok();
  return NotFound(side + " has no branch '" + branch + "'; " + BranchListText(found.branches));
}

Result<RemoteBranches> ListRemoteBranches(const std::string& location, const ListBranchesOptions& options) {
  GlobalInit();
  if (options.allow_foreign_owner) git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 0);
  FS_ASSIGN_OR_RETURN(std::string normalized, NormalizeLocation(location));
  const auto [url, userinfo] = base::SplitCredentials(normalized);
  const std::string shown = base::RedactUrl(normalized);
  FS_RETURN_IF_ERROR(CheckLocalRepository(url));
  git_remote* raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_remote_create_detached(&raw, url.c_str()), "remote " + shown));
  RemotePtr remote(raw);
  UrlAuth auth;
  auth.userinfo = userinfo;
  auth.origin = OriginOf(url);
  git_remote_callbacks callbacks = GIT_REMOTE_CALLBACKS_INIT;
  callbacks.credentials = OnCredentials;
  callbacks.payload = &auth;
  int rc = git_remote_connect(remote.get(), GIT_DIRECTION_FETCH, &callbacks, nullptr, nullptr);
  if (rc < 0) {
    Status st = FromGit(rc, "cannot list the branches of " + shown);
    return Unavailable(base::ScrubSecret(st.message(), userinfo));
  }
  const git_remote_head** heads = nullptr;
  size_t count = 0;
  rc = git_remote_ls(&heads, &count, remote.get());
  if (rc < 0) return Unavailable(base::ScrubSecret(FromGit(rc, "list " + shown).message(), userinfo));
  RemoteBranches out;
  const std::string prefix = "refs/heads/";
  for (size_t i = 0; i < count; ++i) {
    const std::string name = heads[i]->name;
    if (name.rfind(prefix, 0) == 0) out.branches.push_back(name.substr(prefix.size()));
    if (name == "HEAD" && heads[i]->symref_target && std::string(heads[i]->symref_target).rfind(prefix, 0) == 0)
      out.default_branch = std::string(heads[i]->symref_target).substr(prefix.size());
  }
  git_remote_disconnect(remote.get());
  out.branches = MigrationBranchesFirst(std::move(out.branches), out.default_branch);
  return out;
}

}  // namespace forkscope::analyzer::git
