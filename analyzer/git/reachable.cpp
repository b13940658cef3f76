#include "analyzer/git/reachable.h"

#include <git2.h>

#include "analyzer/git/global.h"
#include "analyzer/git/handles.h"

namespace forkscope::analyzer::git {

Result<bool> IsReachable(const std::string& repo_path, const std::string& sha, const std::string& prefix) {
  git_oid target;
  if (sha.size() != GIT_OID_HEXSZ || git_oid_fromstr(&target, sha.c_str()) != 0)
    return InvalidArgument("not a full commit id: '" + sha + "'");
  GlobalInit();
  git_repository* raw = nullptr;
  if (int rc = git_repository_open_ext(&raw, repo_path.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr); rc < 0)
    return FromGit(rc, "open repository " + repo_path);
  RepoPtr repo(raw);
  git_odb* odb_raw = nullptr;
  if (int rc = git_repository_odb(&odb_raw, repo.get()); rc < 0) return FromGit(rc, "open object database");
  OdbPtr odb(odb_raw);
  if (!git_odb_exists(odb.get(), &target)) return false;
  struct Search {
    git_repository* repo;
    git_oid target;
    bool found = false;
  } search{repo.get(), target};
  const std::string glob = prefix + "*";
  int rc = git_reference_foreach_glob(
      repo.get(), glob.c_str(),
      [](const char* name, void* payload) -> int {
        auto* s = static_cast<Search*>(payload);
        git_object* obj = nullptr;
        if (git_revparse_single(&obj, s->repo, name) != 0) return 0;
        ObjectPtr owned(obj);
        git_object* peeled = nullptr;
        if (git_object_peel(&peeled, owned.get(), GIT_OBJECT_COMMIT) != 0) return 0;
        ObjectPtr commit(peeled);
        const git_oid* tip = git_object_id(commit.get());
        if (git_oid_equal(tip, &s->target) || git_graph_descendant_of(s->repo, tip, &s->target) == 1) {
          s->found = true;
          return 1;  // stop: found
        }
        return 0;
      },
      &search);
  if (rc < 0) return FromGit(rc, "list refs " + glob);
  return search.found;
}

}  // namespace forkscope::analyzer::git
