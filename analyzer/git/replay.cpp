// The replay engine (replay.h). For each non-merge fork commit C, in `git rebase` order: a three-way
// merge of trees (libgit2's git_merge_trees, rename detection on — what git's cherry-pick does) with
// ancestor = C's parent, ours = the candidate so far, theirs = C. A clean merge whose tree equals the
// candidate's is a dropped commit; else a new commit with C's author, author date, message and encoding
// and the fixed committer at the target's committer time. The first conflicting commit stops the replay.
// Squash is one such merge: ancestor = the base, ours = the target, theirs = the fork head.
// Objects go into the fork mirror as they are made; the candidate ref is written last (refs are written
// through a lock file and rename), so it never names a commit whose objects are not all on disk.
#include <git2.h>
#include <git2/sys/commit.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <unordered_map>

#include "analyzer/git/replay_internal.h"
#include "analyzer/git/repo_impl.h"
#include "analyzer/git/transfer.h"
#include "base/log.h"

namespace forkscope::analyzer::git {
namespace {

struct OidHash {
  size_t operator()(const git_oid& oid) const {
    size_t h = 0;
    std::memcpy(&h, oid.id, sizeof h);
    return h;
  }
};
struct OidEqual {
  bool operator()(const git_oid& a, const git_oid& b) const { return git_oid_equal(&a, &b); }
};

Result<git_oid> ParseSha(const std::string& sha, const char* what) {
  git_oid oid;
  if (sha.size() != GIT_OID_HEXSZ || git_oid_fromstr(&oid, sha.c_str()) < 0)
    return InvalidArgument(std::string(what) + " is not a commit id: '" + sha + "'");
  return oid;
}

Result<CommitPtr> LookupCommit(git_repository* repo, const git_oid& oid) {
  git_commit* raw = nullptr;
  int rc = git_commit_lookup(&raw, repo, &oid);
  if (rc < 0) return FromGit(rc, "commit " + OidHex(oid));
  return CommitPtr(raw);
}

Result<TreePtr> LookupTree(git_repository* repo, const git_oid& oid) {
  git_tree* raw = nullptr;
  int rc = git_tree_lookup(&raw, repo, &oid);
  if (rc < 0) return FromGit(rc, "tree " + OidHex(oid));
  return TreePtr(raw);
}

// The commits of base..head in the order `git rebase` replays them: `git rev-list --topo-order
// --reverse`. git emits a commit once all its children are out, taking the ready commits last-in
// first-out, so after a merge its second parent's line comes before its first parent's; reversed,
// the first-parent line is replayed first. Merge commits are included (the caller skips them).
Result<std::vector<git_oid>> RebaseOrder(git_repository* repo, const git_oid& head, const git_oid& base,
                                         size_t max_commits) {
  git_revwalk* raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_revwalk_new(&raw, repo), "revwalk"));
  RevwalkPtr walk(raw);
  FS_RETURN_IF_ERROR(FromGit(git_revwalk_push(walk.get(), &head), "revwalk"));
  FS_RETURN_IF_ERROR(FromGit(git_revwalk_hide(walk.get(), &base), "revwalk"));
  std::unordered_map<git_oid, std::vector<git_oid>, OidHash, OidEqual> parents;
  std::unordered_map<git_oid, int, OidHash, OidEqual> indegree;
  git_oid oid;
  while (git_revwalk_next(&oid, walk.get()) == 0) {
    if (parents.size() >= max_commits)
      return FailedPrecondition("the fork has more than " + std::to_string(max_commits) + " commits since the base");
    FS_ASSIGN_OR_RETURN(CommitPtr c, LookupCommit(repo, oid));
    auto& ps = parents[oid];
    for (unsigned i = 0; i < git_commit_parentcount(c.get()); ++i) ps.push_back(*git_commit_parent_id(c.get(), i));
    indegree[oid] = 1;
  }
  for (const auto& [commit, ps] : parents)
    for (const auto& p : ps)
      if (auto it = indegree.find(p); it != indegree.end()) ++it->second;
  std::vector<git_oid> ready, out;
  if (indegree.count(head)) ready.push_back(head);  // every other commit of the range has a child in it
  while (!ready.empty()) {
    git_oid c = ready.back();
    ready.pop_back();
    for (const auto& p : parents[c]) {
      auto it = indegree.find(p);
      if (it != indegree.end() && --it->second == 1) ready.push_back(p);
    }
    out.push_back(c);
  }
  std::reverse(out.begin(), out.end());
  return out;
}

// A CarryCommit for a fork commit, not reached yet.
CarryCommit EntryFor(git_commit* commit) {
  const char* summary = git_commit_summary(commit);
  return {OidHex(*git_commit_id(commit)), summary ? summary : "", CarryCommitState::kNotReached, ""};
}

std::string SquashMessage(const std::vector<CarryCommit>& commits, const std::string& branch, const std::string& onto,
                          const std::string& reimport_base) {
  std::string msg = "Squash of " + std::to_string(commits.size()) + " commit" + (commits.size() == 1 ? "" : "s") +
                    " of " + branch + " onto " + onto.substr(0, 12) + "\n\n";
  if (!reimport_base.empty())
    msg = "Carry of " + branch + " onto " + onto.substr(0, 12) +
          "\n\nThe fork shares no history with upstream: " + "its changes since upstream " +
          reimport_base.substr(0, 12) +
          " (the commit it was imported from), as one commit of its tree on that base.\n\n";
  for (const auto& c : commits) msg += "* " + c.subject + " (" + c.fork_sha.substr(0, 12) + ")\n";
  return msg;
}

// Walks the fork's commits and makes the candidate: one object per replay, owned by PairRepo::Replay.
class Replayer {
 public:
  Replayer(git_repository* repo, const ReplayRequest& request, ReplayResult& result)
      : repo_(repo), request_(request), result_(result) {}

  Status Start(const git_oid& onto, const git_oid& base);
  Status Rebase(const std::vector<git_oid>& order);
  // reimport_base: set for a fork with no history in common with the base (the commit message says so).
  Status Squash(const std::vector<git_oid>& order, const git_oid& head, const std::string& reimport_base = "");

 private:
  struct Merge {
    bool clean = true;
    git_oid tree{};
    IndexPtr index;  // set when not clean
  };
  Result<Merge> MergeTrees(const git_oid& ancestor, const git_oid& ours, const git_oid& theirs);
  Result<git_oid> WriteCommit(const git_signature* author, const char* encoding, const char* message,
                              const git_oid& tree);
  Result<PatchChange> ComparePatches(const git_oid& from, const git_oid& to, const git_oid& new_from,
                                     const git_oid& new_to);
  Result<git_oid> PatchId(const git_oid& from, const git_oid& to);
  Result<git_oid> ParentTree(git_commit* commit);
  Status Pick(git_commit* commit, CarryCommit& entry);
  Status StopAt(git_index* index, const std::string& fork_commit);

  git_repository* repo_;
  const ReplayRequest& request_;
  ReplayResult& result_;
  SignaturePtr committer_;
  git_oid base_tree_{};
  git_oid current_commit_{};
  git_oid current_tree_{};
};

Status Replayer::Start(const git_oid& onto, const git_oid& base) {
  FS_ASSIGN_OR_RETURN(CommitPtr target, LookupCommit(repo_, onto));
  FS_ASSIGN_OR_RETURN(CommitPtr base_commit, LookupCommit(repo_, base));
  current_commit_ = onto;
  current_tree_ = *git_commit_tree_id(target.get());
  base_tree_ = *git_commit_tree_id(base_commit.get());
  // The target's committer time makes the same inputs give the same commit ids.
  const git_signature* when = git_commit_committer(target.get());
  git_signature* sig = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_signature_new(&sig, request_.committer_name.c_str(), request_.committer_email.c_str(),
                                               when->when.time, when->when.offset),
                             "committer identity"));
  committer_.reset(sig);
  return Status::Ok();
}

Result<Replayer::Merge> Replayer::MergeTrees(const git_oid& ancestor, const git_oid& ours, const git_oid& theirs) {
  Merge m;
  // One side as the ancestor: the merge is the other side, whatever the rest of the tree holds.
  if (git_oid_equal(&ancestor, &ours) || git_oid_equal(&ancestor, &theirs)) {
    m.tree = git_oid_equal(&ancestor, &ours) ? theirs : ours;
    return m;
  }
  FS_ASSIGN_OR_RETURN(auto quick, QuickMerge(repo_, ancestor, ours, theirs));
  if (quick && !request_.verify_fast_merge) {
    m.tree = *quick;
    return m;
  }
  FS_ASSIGN_OR_RETURN(TreePtr a, LookupTree(repo_, ancestor));
  FS_ASSIGN_OR_RETURN(TreePtr o, LookupTree(repo_, ours));
  FS_ASSIGN_OR_RETURN(TreePtr t, LookupTree(repo_, theirs));
  git_merge_options opts = GIT_MERGE_OPTIONS_INIT;
  opts.flags = GIT_MERGE_FIND_RENAMES | GIT_MERGE_SKIP_REUC;
  opts.rename_threshold = static_cast<unsigned>(request_.rename_threshold);
  opts.target_limit = request_.rename_limit;
  git_index* raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_merge_trees(&raw, repo_, a.get(), o.get(), t.get(), &opts), "merge trees"));
  IndexPtr index(raw);
  m.clean = !git_index_has_conflicts(index.get());
  if (m.clean) {
    FS_RETURN_IF_ERROR(FromGit(git_index_write_tree_to(&m.tree, index.get(), repo_), "write merged tree"));
  } else {
    m.index = std::move(index);
  }
  if (quick && (!m.clean || !git_oid_equal(&m.tree, &*quick)))
    return Internal("the fast tree merge made " + OidHex(*quick) + ", git_merge_trees " +
                    (m.clean ? OidHex(m.tree) : std::string("a conflict")) + " (theirs " + OidHex(theirs) + ")");
  return m;
}

Result<git_oid> Replayer::WriteCommit(const git_signature* author, const char* encoding, const char* message,
                                      const git_oid& tree) {
  git_oid id;
  const git_oid* parents[] = {&current_commit_};
  FS_RETURN_IF_ERROR(FromGit(
      git_commit_create_from_ids(&id, repo_, nullptr, author, committer_.get(), encoding, message, &tree, 1, parents),
      "write commit"));
  return id;
}

// git_diff_patchid of the tree diff, limited to the files that differ (found without walking equal
// subtrees) so that a large tree costs what changed.
Result<git_oid> Replayer::PatchId(const git_oid& from, const git_oid& to) {
  FS_ASSIGN_OR_RETURN(auto changes, ChangedFiles(repo_, from, to));
  if (changes.empty()) return git_oid{};  // an empty pathspec would mean every path
  std::vector<char*> paths;
  for (auto& c : changes) paths.push_back(c.path.data());
  git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
  opts.flags = GIT_DIFF_DISABLE_PATHSPEC_MATCH;
  opts.pathspec = {paths.data(), paths.size()};
  FS_ASSIGN_OR_RETURN(TreePtr a, LookupTree(repo_, from));
  FS_ASSIGN_OR_RETURN(TreePtr b, LookupTree(repo_, to));
  git_diff* raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_diff_tree_to_tree(&raw, repo_, a.get(), b.get(), &opts), "diff"));
  DiffPtr diff(raw);
  git_oid id;
  FS_RETURN_IF_ERROR(FromGit(git_diff_patchid(&id, diff.get(), nullptr), "patch id"));
  return id;
}

Result<PatchChange> Replayer::ComparePatches(const git_oid& from, const git_oid& to, const git_oid& new_from,
                                             const git_oid& new_to) {
  FS_ASSIGN_OR_RETURN(git_oid original, PatchId(from, to));
  FS_ASSIGN_OR_RETURN(git_oid replayed, PatchId(new_from, new_to));
  return git_oid_equal(&original, &replayed) ? PatchChange::kSame : PatchChange::kChanged;
}

// A root commit reached in a rebase (a fork whose history joins the base's through a merge of an
// unrelated root) is replayed as if its parent were the base, not as the addition of every file. A fork
// whose history does not reach the base at all is carried as one commit (PairRepo::Replay).
Result<git_oid> Replayer::ParentTree(git_commit* commit) {
  if (git_commit_parentcount(commit) == 0) return base_tree_;
  FS_ASSIGN_OR_RETURN(CommitPtr parent, LookupCommit(repo_, *git_commit_parent_id(commit, 0)));
  return *git_commit_tree_id(parent.get());
}

Status Replayer::StopAt(git_index* index, const std::string& fork_commit) {
  FS_ASSIGN_OR_RETURN(result_.conflicts, ReadConflicts(repo_, index, request_, result_.notices));
  for (auto& c : result_.conflicts) c.fork_commit = fork_commit;
  result_.state = CarryState::kConflict;
  return Status::Ok();
}

Status Replayer::Pick(git_commit* commit, CarryCommit& entry) {
  FS_ASSIGN_OR_RETURN(git_oid ancestor, ParentTree(commit));
  const git_oid theirs = *git_commit_tree_id(commit);
  FS_ASSIGN_OR_RETURN(Merge m, MergeTrees(ancestor, current_tree_, theirs));
  if (!m.clean) {
    entry.state = CarryCommitState::kConflict;
    return StopAt(m.index.get(), entry.fork_sha);
  }
  // git rebase keeps a commit that was empty to begin with, and drops one that became empty.
  bool started_empty = git_oid_equal(&ancestor, &theirs);
  if (git_oid_equal(&m.tree, &current_tree_) && !started_empty) {
    entry.state = CarryCommitState::kDropped;
    result_.range_diff.push_back({entry.fork_sha, "", entry.subject, PatchChange::kDropped});
    return Status::Ok();
  }
  FS_ASSIGN_OR_RETURN(git_oid id, WriteCommit(git_commit_author(commit), git_commit_message_encoding(commit),
                                              git_commit_message_raw(commit), m.tree));
  FS_ASSIGN_OR_RETURN(PatchChange change, ComparePatches(ancestor, theirs, current_tree_, m.tree));
  current_commit_ = id;
  current_tree_ = m.tree;
  entry.state = CarryCommitState::kApplied;
  entry.candidate_sha = OidHex(id);
  result_.range_diff.push_back({entry.fork_sha, entry.candidate_sha, entry.subject, change});
  return Status::Ok();
}

Status Replayer::Rebase(const std::vector<git_oid>& order) {
  size_t merges = 0;
  bool stopped = false;
  for (const auto& oid : order) {
    FS_ASSIGN_OR_RETURN(CommitPtr c, LookupCommit(repo_, oid));
    if (git_commit_parentcount(c.get()) > 1) {
      ++merges;
      continue;
    }
    CarryCommit entry = EntryFor(c.get());
    if (!stopped) {
      FS_RETURN_IF_ERROR(Pick(c.get(), entry));
      stopped = entry.state == CarryCommitState::kConflict;
    }
    result_.commits.push_back(std::move(entry));
  }
  if (merges > 0)
    result_.notices.push_back(std::to_string(merges) + " merge commit" + (merges == 1 ? "" : "s") +
                              " of the fork skipped, as git rebase does: their changes arrive with the commits "
                              "they merged");
  if (!stopped) result_.candidate_sha = OidHex(current_commit_);
  return Status::Ok();
}

Status Replayer::Squash(const std::vector<git_oid>& order, const git_oid& head, const std::string& reimport_base) {
  for (const auto& oid : order) {
    FS_ASSIGN_OR_RETURN(CommitPtr c, LookupCommit(repo_, oid));
    if (git_commit_parentcount(c.get()) <= 1) result_.commits.push_back(EntryFor(c.get()));
  }
  FS_ASSIGN_OR_RETURN(CommitPtr head_commit, LookupCommit(repo_, head));
  const std::string head_sha = OidHex(head);
  const git_oid theirs = *git_commit_tree_id(head_commit.get());
  const git_oid onto_tree = current_tree_;
  FS_ASSIGN_OR_RETURN(Merge m, MergeTrees(base_tree_, current_tree_, theirs));
  auto mark = [this](CarryCommitState state, const std::string& sha) {
    for (auto& c : result_.commits) c.state = state, c.candidate_sha = sha;
  };
  if (!m.clean) {
    mark(CarryCommitState::kConflict, "");
    return StopAt(m.index.get(), head_sha);
  }
  std::string message = SquashMessage(result_.commits, request_.branch, OidHex(current_commit_), reimport_base);
  std::string subject = message.substr(0, message.find('\n'));
  if (git_oid_equal(&m.tree, &current_tree_)) {
    mark(CarryCommitState::kDropped, "");
    result_.range_diff.push_back({head_sha, "", subject, PatchChange::kDropped});
    result_.candidate_sha = OidHex(current_commit_);
    return Status::Ok();
  }
  FS_ASSIGN_OR_RETURN(git_oid id, WriteCommit(git_commit_author(head_commit.get()), nullptr, message.c_str(), m.tree));
  FS_ASSIGN_OR_RETURN(PatchChange change, ComparePatches(base_tree_, theirs, onto_tree, m.tree));
  result_.candidate_sha = OidHex(id);
  mark(CarryCommitState::kApplied, result_.candidate_sha);
  result_.range_diff.push_back({head_sha, result_.candidate_sha, subject, change});
  return Status::Ok();
}

Status WriteCandidateRef(git_repository* repo, const std::string& name, const std::string& sha) {
  // Only forkscope writes candidate refs, always under the mirror lock the caller holds: a <ref>.lock
  // found now was left by a process killed while writing, and would refuse every later carry.
  std::error_code ec;
  if (std::filesystem::remove(MirrorPathOf(repo) + "/" + name + ".lock", ec))
    base::Log(base::LogArea::kGit)->warn("carry removed a stale lock ref={}", name);
  git_oid oid;
  FS_RETURN_IF_ERROR(FromGit(git_oid_fromstr(&oid, sha.c_str()), "candidate id"));
  git_reference* raw = nullptr;
  FS_RETURN_IF_ERROR(
      FromGit(git_reference_create(&raw, repo, name.c_str(), &oid, 1, "forkscope carry"), "write " + name));
  ReferencePtr ref(raw);
  return Status::Ok();
}

}  // namespace

Result<ReplayResult> PairRepo::Replay(const ReplayRequest& request) {
  git_repository* repo = impl_->fork.get();
  FS_ASSIGN_OR_RETURN(git_oid head, ParseSha(request.head, "fork head"));
  FS_ASSIGN_OR_RETURN(git_oid base, ParseSha(request.base, "base"));
  FS_ASSIGN_OR_RETURN(git_oid onto, ParseSha(request.onto, "target"));
  if (request.write_ref && request.branch.empty()) return InvalidArgument("a carry needs the fork branch's name");
  ReplayResult result;
  int descends = git_oid_equal(&onto, &head) ? 1 : git_graph_descendant_of(repo, &head, &onto);
  if (descends < 0) return FromGit(descends, "ancestry of " + request.onto);
  if (descends == 1 || git_oid_equal(&onto, &base)) {
    result.state = CarryState::kUpToDate;
    result.notices.push_back("the fork already contains " + request.onto.substr(0, 12) + ": nothing to carry");
    return result;
  }
  // A re-imported fork (its history does not reach the base): its commits before and at the import are
  // no changes to upstream's code, so one commit of the fork's tree on the base is carried, as `git rebase
  // --onto <onto> <base>` carries such a commit (docs/carry.md, re-imported forks).
  const int reaches_base = git_oid_equal(&head, &base) ? 1 : git_graph_descendant_of(repo, &head, &base);
  if (reaches_base < 0) return FromGit(reaches_base, "ancestry of " + request.base);
  const bool reimport = reaches_base == 0;
  FS_ASSIGN_OR_RETURN(auto order, RebaseOrder(repo, head, base, request.max_commits));
  Replayer replayer(repo, request, result);
  FS_RETURN_IF_ERROR(replayer.Start(onto, base));
  if (reimport) {
    result.notices.push_back(
        "the fork shares no history with upstream: its changes since base " + request.base.substr(0, 12) +
        " are carried as one commit of the fork's tree on that base (what `git rebase --onto " +
        request.onto.substr(0, 12) + " " + request.base.substr(0, 12) + "` makes of it), not commit by commit");
    FS_RETURN_IF_ERROR(replayer.Squash(order, head, request.base));
  } else if (request.strategy == CarryStrategy::kSquash) {
    FS_RETURN_IF_ERROR(replayer.Squash(order, head));
  } else {
    FS_RETURN_IF_ERROR(replayer.Rebase(order));
  }
  if (result.state != CarryState::kClean || !request.write_ref) return result;
  // The candidate references upstream's trees and blobs, which the fork mirror reads through an
  // alternate: record it on disk before the ref exists, so the git CLI can read the candidate too.
  RepoLock lock(MirrorPathOf(repo));
  if (!lock.locked()) return Unavailable("cannot lock the fork mirror to write the candidate");
  FS_RETURN_IF_ERROR(LinkUpstreamObjects(repo, impl_->upstream.get()));
  // In a fork network the candidate lives in the fork's namespace: refs/forks/<name>/candidates/...
  result.candidate_ref = impl_->refs.fork == "refs/"
                             ? CandidateRefName(request.branch, request.onto)
                             : impl_->refs.fork + "candidates/" + request.branch + "/" + request.onto.substr(0, 12);
  FS_RETURN_IF_ERROR(WriteCandidateRef(repo, result.candidate_ref, result.candidate_sha));
  base::Log(base::LogArea::kGit)->debug("carry candidate ref={} sha={}", result.candidate_ref, result.candidate_sha);
  return result;
}

}  // namespace forkscope::analyzer::git
