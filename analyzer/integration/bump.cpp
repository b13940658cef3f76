#include "analyzer/integration/bump.h"

#include <ctime>

#include "analyzer/git/gitlink_bump.h"
#include "analyzer/git/pin_reach.h"
#include "analyzer/git/push.h"
#include "base/url.h"

namespace forkscope::analyzer::integration {
namespace {

std::string Short(const std::string& sha) { return sha.substr(0, 12); }

std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string BranchName(const LibraryReport& lib, const std::string& sha) {
  return git::BumpBranchRef(lib.name, sha).substr(std::string("refs/heads/").size());
}

std::string Message(const LibraryReport& lib, const std::string& new_sha, const std::string& fork_url) {
  std::string m = "Bump " + lib.name + " to " + Short(new_sha) + "\n\n";
  m += lib.path + ": " + (lib.pinned_sha.empty() ? std::string("(none)") : Short(lib.pinned_sha)) + " -> " + new_sha;
  if (!fork_url.empty()) m += "\nfrom " + base::RedactUrl(fork_url) + (lib.branch.empty() ? "" : " " + lib.branch);
  return m + "\n\nMade by forkscope: only this gitlink changes.\n";
}

}  // namespace

std::string BumpCommands(const IntegratorSource& integrator, const LibraryReport& lib, const std::string& new_sha) {
  const std::string url = base::SplitCredentials(integrator.url).url;
  const std::string branch = BranchName(lib, new_sha);
  std::string out = "# in a clone of " + url + " (git clone " + Quote(url) + ")\n";
  out += "git fetch origin " + Quote(integrator.branch) + "\n";
  out += "git checkout -B " + branch + " FETCH_HEAD\n";
  out += "git update-index --cacheinfo 160000," + new_sha + "," + Quote(lib.path) + "\n";
  out += "git commit -m " + Quote("Bump " + lib.name + " to " + Short(new_sha)) + "\n";
  out += "git submodule update --init " + Quote(lib.path) + "   # checks the new pin out\n";
  out += "git push origin " + branch + "\n";
  return out;
}

std::string ArchiveTagName(const std::string& pin, int64_t now_s) {
  std::time_t t = static_cast<std::time_t>(now_s);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char date[16];
  std::strftime(date, sizeof date, "%Y-%m-%d", &tm);
  return std::string("paddle-archive/") + date + "-" + Short(pin);
}

std::string ArchiveCommands(const std::string& fork_url, const std::string& pin, int64_t now_s) {
  const std::string url = base::SplitCredentials(fork_url).url;
  return "# before the migration branch is replaced, keep " + Short(pin) + " reachable on " + url + "\n" +
         "git fetch " + Quote(url) + " " + pin + "\n" + "git push " + Quote(url) + " " + pin + ":refs/tags/" +
         ArchiveTagName(pin, now_s) + "\n";
}

Result<BumpOutcome> PushBump(const BumpRequest& r) {
  if (r.library.path.empty()) return InvalidArgument("the library has no submodule path to bump");
  const std::string dest = git::BumpBranchRef(r.library.name, r.new_sha);
  const std::string hold = "refs/forkscope/bumps/" + dest.substr(std::string("refs/heads/forkscope/bump-").size());
  git::GitlinkBump bump;
  bump.repo = r.integrator.repo;
  bump.base_rev = r.integrator.ref;
  bump.path = r.library.path;
  bump.new_sha = r.new_sha;
  bump.message = Message(r.library, r.new_sha, r.fork_url);
  bump.time = r.now_s;
  bump.out_ref = hold;
  FS_ASSIGN_OR_RETURN(git::GitlinkBumpResult made, git::CommitGitlinkBump(bump));
  git::PushRequest push;
  push.repo = r.integrator.repo;
  push.source_ref = hold;
  push.expected_sha = made.commit;
  push.url = r.push_url;
  push.dest_ref = dest;
  push.migration_branch = r.integrator.branch;  // the integrator's branch is never a destination
  FS_RETURN_IF_ERROR(git::PushCommit(push));
  return BumpOutcome{made.commit, dest, BumpCommands(r.integrator, r.library, r.new_sha)};
}

Result<std::vector<LibraryReport>> PinsOrphanedBy(const IntegratorReport& report, const RegisteredFork& fork,
                                                  const std::string& replacement) {
  std::vector<LibraryReport> out;
  if (fork.repo.empty()) return out;
  for (const auto& lib : report.libraries) {
    if (lib.fork != fork.name || lib.pinned_sha.empty()) continue;
    FS_ASSIGN_OR_RETURN(bool drops,
                        git::WouldOrphanPin(fork.repo, fork.refs_prefix, fork.branch, replacement, lib.pinned_sha));
    if (drops) out.push_back(lib);
  }
  return out;
}

}  // namespace forkscope::analyzer::integration
