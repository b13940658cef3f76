#include "analyzer/git/pin_reach.h"

#include <vector>

#include "analyzer/git/handles.h"

namespace forkscope::analyzer::git {
namespace {

Result<git_oid> ParseSha(const std::string& sha) {
  git_oid oid;
  if (sha.size() != GIT_OID_HEXSZ || git_oid_fromstr(&oid, sha.c_str()) != 0)
    return InvalidArgument("'" + sha + "' is not a full commit id");
  return oid;
}

Result<RepoPtr> Open(const std::string& path) {
  GlobalInit();
  git_repository* raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_repository_open_bare(&raw, path.c_str()), "open " + path));
  return RepoPtr(raw);
}

bool HasCommit(git_repository* repo, const git_oid& oid) {
  git_commit* c = nullptr;
  if (git_commit_lookup(&c, repo, &oid) != 0) return false;
  git_commit_free(c);
  return true;
}

// The commit a ref names, tags peeled; false when it names no commit.
bool RefCommit(git_repository* repo, const char* name, git_oid& out) {
  git_reference* ref = nullptr;
  if (git_reference_lookup(&ref, repo, name) != 0) return false;
  ReferencePtr owned(ref);
  git_object* peeled = nullptr;
  if (git_reference_peel(&peeled, ref, GIT_OBJECT_COMMIT) != 0) return false;
  out = *git_object_id(peeled);
  git_object_free(peeled);
  return true;
}

// The fork's branches and tags other than the migration branch: (name under the prefix, commit).
std::vector<std::pair<std::string, git_oid>> OtherRefs(git_repository* repo, const std::string& prefix,
                                                       const std::string& branch_ref) {
  std::vector<std::pair<std::string, git_oid>> out;
  git_reference_iterator* it = nullptr;
  if (git_reference_iterator_new(&it, repo) != 0) return out;
  const char* name = nullptr;
  std::vector<std::string> names;
  while (git_reference_next_name(&name, it) == 0) {
    std::string n = name;
    if (n.compare(0, prefix.size(), prefix) != 0 || n == branch_ref) continue;
    std::string rest = n.substr(prefix.size());
    if (rest.rfind("heads/", 0) == 0 || rest.rfind("tags/", 0) == 0) names.push_back(n);
  }
  git_reference_iterator_free(it);
  for (const auto& n : names) {
    git_oid oid;
    if (RefCommit(repo, n.c_str(), oid)) out.emplace_back(n.substr(prefix.size()), oid);
  }
  return out;
}

// Whether pin is one of tips or an ancestor of one.
Result<bool> ReachableFrom(git_repository* repo, const git_oid& pin, const std::vector<git_oid>& tips) {
  if (tips.empty()) return false;
  for (const auto& t : tips)
    if (git_oid_equal(&t, &pin)) return true;
  int rc = git_graph_reachable_from_any(repo, &pin, tips.data(), tips.size());
  if (rc < 0) return FromGit(rc, "reachability of " + OidHex(pin));
  return rc == 1;
}

std::vector<git_oid> Tips(const std::vector<std::pair<std::string, git_oid>>& refs) {
  std::vector<git_oid> out;
  for (const auto& r : refs) out.push_back(r.second);
  return out;
}

}  // namespace

Result<PinReach> ReachOfPin(const std::string& repo_path, const std::string& refs_prefix, const std::string& branch,
                            const std::string& pin, const std::string& upstream_ref) {
  FS_ASSIGN_OR_RETURN(git_oid pin_oid, ParseSha(pin));
  FS_ASSIGN_OR_RETURN(RepoPtr repo, Open(repo_path));
  PinReach r;
  r.present = HasCommit(repo.get(), pin_oid);
  const std::string branch_ref = refs_prefix + "heads/" + branch;
  git_oid head;
  const bool has_head = RefCommit(repo.get(), branch_ref.c_str(), head);
  if (has_head) r.branch_head = OidHex(head);
  if (!r.present) return r;
  if (has_head) {
    FS_ASSIGN_OR_RETURN(r.on_branch, ReachableFrom(repo.get(), pin_oid, {head}));
    if (r.on_branch) {
      size_t ahead = 0, behind = 0;
      FS_RETURN_IF_ERROR(FromGit(git_graph_ahead_behind(&ahead, &behind, repo.get(), &head, &pin_oid), "ahead/behind"));
      r.behind = static_cast<int>(ahead);
    }
  }
  if (!r.on_branch) {
    const auto others = OtherRefs(repo.get(), refs_prefix, branch_ref);
    FS_ASSIGN_OR_RETURN(bool anywhere, ReachableFrom(repo.get(), pin_oid, Tips(others)));
    for (size_t i = 0; anywhere && i < others.size() && r.other_ref.empty(); ++i) {
      FS_ASSIGN_OR_RETURN(bool here, ReachableFrom(repo.get(), pin_oid, {others[i].second}));
      if (here) r.other_ref = others[i].first;
    }
  }
  git_oid up;
  if (!upstream_ref.empty() && RefCommit(repo.get(), upstream_ref.c_str(), up)) {
    size_t ahead = 0, behind = 0;
    FS_RETURN_IF_ERROR(FromGit(git_graph_ahead_behind(&ahead, &behind, repo.get(), &up, &pin_oid), "upstream behind"));
    r.upstream_behind = static_cast<int>(ahead);
  }
  return r;
}

Result<bool> WouldOrphanPin(const std::string& repo_path, const std::string& refs_prefix, const std::string& branch,
                            const std::string& replacement, const std::string& pin) {
  FS_ASSIGN_OR_RETURN(git_oid pin_oid, ParseSha(pin));
  FS_ASSIGN_OR_RETURN(git_oid repl_oid, ParseSha(replacement));
  FS_ASSIGN_OR_RETURN(RepoPtr repo, Open(repo_path));
  if (!HasCommit(repo.get(), pin_oid)) return false;  // already gone: nothing a push can drop
  if (!HasCommit(repo.get(), repl_oid))
    return NotFound("replacement commit " + replacement + " is not in " + repo_path);
  const std::string branch_ref = refs_prefix + "heads/" + branch;
  git_oid head;
  std::vector<git_oid> now;
  if (RefCommit(repo.get(), branch_ref.c_str(), head)) now.push_back(head);
  const auto others = OtherRefs(repo.get(), refs_prefix, branch_ref);
  const std::vector<git_oid> other_tips = Tips(others);
  now.insert(now.end(), other_tips.begin(), other_tips.end());
  FS_ASSIGN_OR_RETURN(bool reachable_now, ReachableFrom(repo.get(), pin_oid, now));
  if (!reachable_now) return false;
  std::vector<git_oid> after = other_tips;
  after.push_back(repl_oid);
  FS_ASSIGN_OR_RETURN(bool reachable_after, ReachableFrom(repo.get(), pin_oid, after));
  return !reachable_after;
}

}  // namespace forkscope::analyzer::git
