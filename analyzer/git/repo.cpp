#include "analyzer/git/repo.h"

#include <algorithm>
#include <filesystem>

#include "analyzer/git/handles.h"
#include "analyzer/git/repo_impl.h"
#include "analyzer/git/tree_changes.h"
#include "base/log.h"

namespace forkscope::analyzer::git {
namespace fs = std::filesystem;

namespace {

Result<RepoPtr> OpenBare(const std::string& path) {
  git_repository* raw = nullptr;
  int rc = git_repository_open_bare(&raw, path.c_str());
  if (rc < 0) return FromGit(rc, "open repository " + path);
  return RepoPtr(raw);
}

Result<git_oid> ParseOid(const std::string& sha) {
  git_oid oid;
  if (sha.size() != GIT_OID_HEXSZ || git_oid_fromstr(&oid, sha.c_str()) < 0)
    return InvalidArgument("not a commit id: '" + sha + "'");
  return oid;
}

Result<CommitPtr> LookupCommit(git_repository* repo, const std::string& sha) {
  FS_ASSIGN_OR_RETURN(git_oid oid, ParseOid(sha));
  git_commit* raw = nullptr;
  int rc = git_commit_lookup(&raw, repo, &oid);
  if (rc < 0) return FromGit(rc, "commit " + sha);
  return CommitPtr(raw);
}

Result<TreePtr> CommitTree(git_repository* repo, const std::string& sha) {
  FS_ASSIGN_OR_RETURN(CommitPtr commit, LookupCommit(repo, sha));
  git_tree* raw = nullptr;
  int rc = git_commit_tree(&raw, commit.get());
  if (rc < 0) return FromGit(rc, "tree of " + sha);
  return TreePtr(raw);
}

// Branch names (without <refs>heads/) of one side.
std::vector<std::string> LocalBranches(git_repository* repo, const std::string& refs) {
  std::vector<std::string> out;
  const std::string prefix = refs + "heads/";
  git_reference_iterator* raw = nullptr;
  if (git_reference_iterator_glob_new(&raw, repo, (prefix + "*").c_str()) < 0) return out;
  const char* name = nullptr;
  while (git_reference_next_name(&name, raw) == 0) {
    std::string n = name;
    if (n.rfind(prefix, 0) == 0) out.push_back(n.substr(prefix.size()));
  }
  git_reference_iterator_free(raw);
  std::sort(out.begin(), out.end());
  return out;
}

std::string HeadRefName(const std::string& refs) { return refs == "refs/" ? "HEAD" : refs + "HEAD"; }

std::string HeadBranch(git_repository* repo, const std::string& refs) {
  git_reference* raw = nullptr;
  if (git_reference_lookup(&raw, repo, HeadRefName(refs).c_str()) < 0) return "";
  ReferencePtr head(raw);
  if (git_reference_type(head.get()) != GIT_REFERENCE_SYMBOLIC) return "";
  std::string target = git_reference_symbolic_target(head.get());
  const std::string prefix = refs + "heads/";
  if (target.rfind(prefix, 0) != 0) return "";
  std::string name = target.substr(prefix.size());
  // An unborn HEAD (the remote's default was not fetched) is not a default branch.
  git_reference* check = nullptr;
  if (git_reference_lookup(&check, repo, target.c_str()) < 0) return "";
  git_reference_free(check);
  return name;
}

Result<std::string> BranchSha(git_repository* repo, const std::string& refs, const std::string& branch,
                              const char* side) {
  const std::string name = refs + "heads/" + branch;
  int valid = 0;
  if (branch.empty() || git_reference_name_is_valid(&valid, name.c_str()) < 0 || !valid)
    return NotFound(std::string(side) + " has no branch '" + branch + "'");
  git_reference* raw = nullptr;
  int rc = git_reference_lookup(&raw, repo, name.c_str());
  if (rc == GIT_ENOTFOUND || rc == GIT_EINVALIDSPEC)
    return NotFound(std::string(side) + " has no branch '" + branch + "'");
  if (rc < 0) return FromGit(rc, std::string(side) + " branch " + branch);
  ReferencePtr ref(raw);
  git_object* obj = nullptr;
  rc = git_reference_peel(&obj, ref.get(), GIT_OBJECT_COMMIT);
  if (rc < 0) return FromGit(rc, std::string(side) + " branch " + branch);
  ObjectPtr owned(obj);
  return OidHex(*git_object_id(owned.get()));
}

Result<ObjectPtr> RevparseOne(git_repository* repo, const std::string& rev) {
  git_object* obj = nullptr;
  int rc = git_revparse_single(&obj, repo, rev.c_str());
  if (rc < 0) return FromGit(rc, "revision '" + rev + "'");
  ObjectPtr owned(obj);
  git_object* commit = nullptr;
  rc = git_object_peel(&commit, owned.get(), GIT_OBJECT_COMMIT);
  if (rc < 0) return InvalidArgument("revision '" + rev + "' is not a commit");
  return ObjectPtr(commit);
}

Result<std::string> RevparseCommit(git_repository* repo, const std::string& refs, const std::string& rev) {
  FS_ASSIGN_OR_RETURN(ObjectPtr c, RevparseIn(repo, refs, rev));
  return OidHex(*git_object_id(c.get()));
}

BlobPtr LookupBlob(git_repository* repo, const git_oid& id) {
  git_blob* raw = nullptr;
  if (git_blob_lookup(&raw, repo, &id) < 0) return BlobPtr();
  return BlobPtr(raw);
}

std::string BlobContent(git_blob* blob, size_t max_bytes) {
  if (!blob) return "";
  auto size = static_cast<size_t>(git_blob_rawsize(blob));
  if (size > max_bytes) return "";
  return std::string(static_cast<const char*>(git_blob_rawcontent(blob)), size);
}

// The plain tree-to-tree diff of two commits (no contents read, no rename detection).
Result<DiffPtr> TreeDiff(git_repository* repo, const std::string& a, const std::string& b) {
  FS_ASSIGN_OR_RETURN(TreePtr ta, CommitTree(repo, a));
  FS_ASSIGN_OR_RETURN(TreePtr tb, CommitTree(repo, b));
  git_diff* raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_diff_tree_to_tree(&raw, repo, ta.get(), tb.get(), nullptr), "diff"));
  return DiffPtr(raw);
}

FileStatus StatusOf(char status) {
  switch (status) {
    case 'A':
      return FileStatus::kAdded;
    case 'D':
      return FileStatus::kDeleted;
    case 'R':
      return FileStatus::kRenamed;
    case 'T':
      return FileStatus::kTypeChanged;
    default:
      return FileStatus::kModified;
  }
}

std::string HunkHeaderText(const git_diff_hunk& h) {
  std::string header(h.header, h.header_len);
  auto second = header.find("@@", 2);
  if (second == std::string::npos) return "";
  std::string rest = header.substr(second + 2);
  while (!rest.empty() && (rest.back() == '\n' || rest.back() == '\r')) rest.pop_back();
  if (!rest.empty() && rest.front() == ' ') rest.erase(rest.begin());
  return rest;
}

Status FillHunks(git_patch* patch, const DiffOptions& options, FileChange& file) {
  size_t adds = 0, dels = 0;
  git_patch_line_stats(nullptr, &adds, &dels, patch);
  file.additions = static_cast<int>(adds);
  file.deletions = static_cast<int>(dels);
  if (adds + dels > options.max_lines_per_file) {
    file.truncated = true;
    return Status::Ok();
  }
  size_t nh = git_patch_num_hunks(patch);
  file.hunks.reserve(nh);
  for (size_t h = 0; h < nh; ++h) {
    const git_diff_hunk* gh = nullptr;
    size_t nlines = 0;
    FS_RETURN_IF_ERROR(FromGit(git_patch_get_hunk(&gh, &nlines, patch, h), "hunk"));
    Hunk hunk;
    hunk.old_start = gh->old_start;
    hunk.old_lines = gh->old_lines;
    hunk.new_start = gh->new_start;
    hunk.new_lines = gh->new_lines;
    hunk.header = HunkHeaderText(*gh);
    hunk.lines.reserve(nlines);
    FS_RETURN_IF_ERROR(ReadHunkLines(patch, h, nlines, hunk));
    file.hunks.push_back(std::move(hunk));
  }
  return Status::Ok();
}

// One changed file with its hunks: the patch is made from the blobs the classifier also reads, so each
// blob is inflated once.
Result<DiffFile> MakeDiffFile(git_repository* repo, const TreeChange& change, const DiffOptions& options) {
  DiffFile df;
  FileChange& f = df.change;
  f.status = StatusOf(change.status);
  const bool added = change.status == 'A', deleted = change.status == 'D';
  f.path = deleted ? change.old_path : change.new_path;
  if (f.status == FileStatus::kRenamed) {
    f.old_path = change.old_path;
    f.similarity = change.similarity;
  }
  if (!added) df.old_oid = OidHex(change.old_id);
  if (!deleted) df.new_oid = OidHex(change.new_id);
  BlobPtr old_blob = added ? BlobPtr() : LookupBlob(repo, change.old_id);
  BlobPtr new_blob = deleted ? BlobPtr() : LookupBlob(repo, change.new_id);
  git_diff_options dopts = HunkDiffOptions(options.context_lines);
  const char* old_path = added ? change.new_path.c_str() : change.old_path.c_str();
  const char* new_path = deleted ? change.old_path.c_str() : change.new_path.c_str();
  git_patch* praw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_patch_from_blobs(&praw, old_blob.get(), old_path, new_blob.get(), new_path, &dopts),
                             "patch " + f.path));
  PatchPtr patch(praw);
  f.binary = (git_patch_get_delta(patch.get())->flags & GIT_DIFF_FLAG_BINARY) != 0;
  if (!f.binary) FS_RETURN_IF_ERROR(FillHunks(patch.get(), options, f));
  if (options.load_texts && !f.binary && !f.truncated && !f.hunks.empty()) {
    df.old_text = BlobContent(old_blob.get(), options.max_text_bytes);
    df.new_text = BlobContent(new_blob.get(), options.max_text_bytes);
  }
  return df;
}

}  // namespace

git_diff_options HunkDiffOptions(int context_lines) {
  git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
  opts.flags = GIT_DIFF_INDENT_HEURISTIC;
  opts.context_lines = static_cast<uint32_t>(context_lines);
  opts.interhunk_lines = 0;
  return opts;
}

Status ReadHunkLines(git_patch* patch, size_t index, size_t count, Hunk& hunk) {
  for (size_t l = 0; l < count; ++l) {
    const git_diff_line* gl = nullptr;
    FS_RETURN_IF_ERROR(FromGit(git_patch_get_line_in_hunk(&gl, patch, index, l), "line"));
    if (gl->origin != GIT_DIFF_LINE_ADDITION && gl->origin != GIT_DIFF_LINE_DELETION &&
        gl->origin != GIT_DIFF_LINE_CONTEXT)
      continue;  // "\ No newline at end of file" markers
    DiffLine line;
    line.origin = gl->origin;
    line.text.assign(gl->content, gl->content_len);
    while (!line.text.empty() && (line.text.back() == '\n' || line.text.back() == '\r')) line.text.pop_back();
    line.old_lineno = gl->old_lineno;
    line.new_lineno = gl->new_lineno;
    hunk.lines.push_back(std::move(line));
  }
  return Status::Ok();
}

Result<ObjectPtr> RevparseIn(git_repository* repo, const std::string& refs, const std::string& rev) {
  if (rev.empty()) return InvalidArgument("empty revision");
  if (refs == "refs/") return RevparseOne(repo, rev);
  // In a network: names are looked up inside the side's namespace (as git would: tag, then branch),
  // a full ref name only there; what is left (a sha, a sha~n) anywhere.
  if (rev.rfind("refs/", 0) == 0) return RevparseOne(repo, refs + rev.substr(5));
  if (rev.rfind("HEAD", 0) == 0) return RevparseOne(repo, refs + rev);
  for (const char* kind : {"tags/", "heads/"}) {
    auto found = RevparseOne(repo, refs + kind + rev);
    if (found.ok() || found.status().code() == StatusCode::kInvalidArgument) return found;
  }
  return RevparseOne(repo, rev);
}

PairRepo::PairRepo(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PairRepo::~PairRepo() = default;

Result<std::unique_ptr<PairRepo>> PairRepo::Open(const std::string& fork_mirror, const std::string& upstream_mirror,
                                                 const RefSpaces& refs) {
  GlobalInit();
  auto impl = std::make_unique<Impl>();
  impl->refs = refs;
  FS_ASSIGN_OR_RETURN(impl->fork, OpenBare(fork_mirror));
  FS_ASSIGN_OR_RETURN(impl->upstream, OpenBare(upstream_mirror));
  if (fs::path(fork_mirror) != fs::path(upstream_mirror)) {
    git_odb* raw = nullptr;
    FS_RETURN_IF_ERROR(FromGit(git_repository_odb(&raw, impl->fork.get()), "fork object database"));
    OdbPtr odb(raw);
    std::string objects = (fs::path(upstream_mirror) / "objects").string();
    FS_RETURN_IF_ERROR(FromGit(git_odb_add_disk_alternate(odb.get(), objects.c_str()), "attach upstream objects"));
  }
  return std::unique_ptr<PairRepo>(new PairRepo(std::move(impl)));
}

std::vector<std::string> PairRepo::ForkBranches() const { return LocalBranches(impl_->fork.get(), impl_->refs.fork); }
std::vector<std::string> PairRepo::UpstreamBranches() const {
  return LocalBranches(impl_->upstream.get(), impl_->refs.upstream);
}
std::string PairRepo::ForkDefaultBranch() const { return HeadBranch(impl_->fork.get(), impl_->refs.fork); }
std::string PairRepo::UpstreamDefaultBranch() const { return HeadBranch(impl_->upstream.get(), impl_->refs.upstream); }

Result<std::string> PairRepo::ForkBranchSha(const std::string& branch) const {
  return BranchSha(impl_->fork.get(), impl_->refs.fork, branch, "fork");
}
Result<std::string> PairRepo::UpstreamBranchSha(const std::string& branch) const {
  return BranchSha(impl_->upstream.get(), impl_->refs.upstream, branch, "upstream");
}

Result<std::string> PairRepo::ResolveCommit(const std::string& rev) const {
  auto up = RevparseCommit(impl_->upstream.get(), impl_->refs.upstream, rev);
  if (up.ok()) return up;
  auto fork = RevparseCommit(impl_->fork.get(), impl_->refs.fork, rev);
  if (fork.ok()) return fork;
  return NotFound("unknown revision '" + rev + "' in upstream or fork");
}

Result<std::optional<std::string>> PairRepo::MergeBase(const std::string& a, const std::string& b) const {
  FS_ASSIGN_OR_RETURN(git_oid oa, ParseOid(a));
  FS_ASSIGN_OR_RETURN(git_oid ob, ParseOid(b));
  git_oid out;
  int rc = git_merge_base(&out, impl_->fork.get(), &oa, &ob);
  if (rc == GIT_ENOTFOUND) return std::optional<std::string>();
  if (rc < 0) return FromGit(rc, "merge-base");
  return std::optional<std::string>(OidHex(out));
}

Result<std::pair<int, int>> PairRepo::AheadBehind(const std::string& local, const std::string& upstream) const {
  FS_ASSIGN_OR_RETURN(git_oid ol, ParseOid(local));
  FS_ASSIGN_OR_RETURN(git_oid ou, ParseOid(upstream));
  size_t ahead = 0, behind = 0;
  FS_RETURN_IF_ERROR(FromGit(git_graph_ahead_behind(&ahead, &behind, impl_->fork.get(), &ol, &ou), "ahead/behind"));
  return std::make_pair(static_cast<int>(ahead), static_cast<int>(behind));
}

Result<CommitInfo> PairRepo::Commit(const std::string& sha) const {
  FS_ASSIGN_OR_RETURN(CommitPtr c, LookupCommit(impl_->fork.get(), sha));
  CommitInfo info;
  info.sha = sha;
  const char* summary = git_commit_summary(c.get());
  info.subject = summary ? summary : "";
  info.author_time = git_commit_author(c.get())->when.time;
  info.committer_time = git_commit_committer(c.get())->when.time;
  return info;
}

Result<std::vector<std::string>> PairRepo::History(const std::string& head, int limit, int64_t not_after,
                                                   int* newer) const {
  FS_ASSIGN_OR_RETURN(git_oid oh, ParseOid(head));
  git_revwalk* raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_revwalk_new(&raw, impl_->fork.get()), "revwalk"));
  RevwalkPtr walk(raw);
  git_revwalk_sorting(walk.get(), GIT_SORT_TIME);
  FS_RETURN_IF_ERROR(FromGit(git_revwalk_push(walk.get(), &oh), "revwalk"));
  std::vector<std::string> out;
  if (newer) *newer = 0;
  git_oid oid;
  while (static_cast<int>(out.size()) < limit && git_revwalk_next(&oid, walk.get()) == 0) {
    if (not_after != INT64_MAX) {
      FS_ASSIGN_OR_RETURN(CommitPtr c, LookupCommit(impl_->fork.get(), OidHex(oid)));
      if (git_commit_time(c.get()) > not_after) {
        if (newer) ++*newer;
        continue;
      }
    }
    out.push_back(OidHex(oid));
  }
  return out;
}

Result<CommitInfo> PairRepo::OldestRoot(const std::string& head) const {
  FS_ASSIGN_OR_RETURN(git_oid oh, ParseOid(head));
  git_revwalk* raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_revwalk_new(&raw, impl_->fork.get()), "revwalk"));
  RevwalkPtr walk(raw);
  FS_RETURN_IF_ERROR(FromGit(git_revwalk_push(walk.get(), &oh), "revwalk"));
  std::optional<CommitInfo> oldest;
  git_oid oid;
  while (git_revwalk_next(&oid, walk.get()) == 0) {
    FS_ASSIGN_OR_RETURN(CommitPtr c, LookupCommit(impl_->fork.get(), OidHex(oid)));
    if (git_commit_parentcount(c.get()) > 0) continue;
    const int64_t t = git_commit_committer(c.get())->when.time;
    if (!oldest || t < oldest->committer_time) {
      FS_ASSIGN_OR_RETURN(CommitInfo info, Commit(OidHex(oid)));
      oldest = std::move(info);
    }
  }
  if (!oldest) return NotFound("no root commit in the history of " + head);
  return *oldest;
}

Result<std::vector<std::pair<CommitInfo, std::vector<std::string>>>> PairRepo::CommitsWithPaths(const std::string& base,
                                                                                                const std::string& head,
                                                                                                int limit) const {
  FS_ASSIGN_OR_RETURN(git_oid ob, ParseOid(base));
  FS_ASSIGN_OR_RETURN(git_oid oh, ParseOid(head));
  git_revwalk* raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_revwalk_new(&raw, impl_->fork.get()), "revwalk"));
  RevwalkPtr walk(raw);
  git_revwalk_sorting(walk.get(), GIT_SORT_TIME);
  FS_RETURN_IF_ERROR(FromGit(git_revwalk_push(walk.get(), &oh), "revwalk"));
  FS_RETURN_IF_ERROR(FromGit(git_revwalk_hide(walk.get(), &ob), "revwalk"));
  std::vector<std::pair<CommitInfo, std::vector<std::string>>> out;
  git_oid oid;
  while (static_cast<int>(out.size()) < limit && git_revwalk_next(&oid, walk.get()) == 0) {
    std::string sha = OidHex(oid);
    FS_ASSIGN_OR_RETURN(CommitInfo info, Commit(sha));
    FS_ASSIGN_OR_RETURN(CommitPtr c, LookupCommit(impl_->fork.get(), sha));
    std::vector<std::string> paths;
    if (git_commit_parentcount(c.get()) <= 1) {  // merges bring nothing of their own here
      git_tree* tree = nullptr;
      git_tree* parent_tree = nullptr;
      git_commit* parent = nullptr;
      if (git_commit_parentcount(c.get()) == 1 && git_commit_parent(&parent, c.get(), 0) == 0) {
        git_commit_tree(&parent_tree, parent);
        git_commit_free(parent);
      }
      git_commit_tree(&tree, c.get());
      TreePtr t(tree), pt(parent_tree);
      git_diff* d = nullptr;
      if (git_diff_tree_to_tree(&d, impl_->fork.get(), pt.get(), t.get(), nullptr) == 0) {
        DiffPtr diff(d);
        for (size_t i = 0; i < git_diff_num_deltas(diff.get()); ++i) {
          const git_diff_delta* delta = git_diff_get_delta(diff.get(), i);
          paths.emplace_back(delta->status == GIT_DELTA_DELETED ? delta->old_file.path : delta->new_file.path);
        }
      }
    }
    out.emplace_back(std::move(info), std::move(paths));
  }
  return out;
}

Result<std::vector<DiffFile>> PairRepo::Diff(const std::string& base, const std::string& head,
                                             const DiffOptions& options) const {
  git_repository* repo = impl_->fork.get();
  FS_ASSIGN_OR_RETURN(TreePtr old_tree, CommitTree(repo, base));
  FS_ASSIGN_OR_RETURN(TreePtr new_tree, CommitTree(repo, head));
  const RenameOptions renames{options.rename_threshold, options.rename_limit};
  FS_ASSIGN_OR_RETURN(TreeChanges tree, DiffTreesWithRenames(repo, old_tree.get(), new_tree.get(), renames));
  if (tree.inexact_renames_skipped)
    base::Log(base::LogArea::kGit)
        ->info("diff base={} head={} inexact rename detection skipped: more candidates than rename_limit={}", base,
               head, options.rename_limit);
  std::vector<DiffFile> out;
  out.reserve(tree.changes.size());
  for (const TreeChange& change : tree.changes) {
    FS_ASSIGN_OR_RETURN(DiffFile df, MakeDiffFile(repo, change, options));
    out.push_back(std::move(df));
  }
  return out;
}

Result<int> PairRepo::FilesDistance(const std::string& a, const std::string& b) const {
  FS_ASSIGN_OR_RETURN(DiffPtr diff, TreeDiff(impl_->fork.get(), a, b));
  return static_cast<int>(git_diff_num_deltas(diff.get()));
}

Result<TreeDistance> PairRepo::Distance(const std::string& a, const std::string& b) const {
  FS_ASSIGN_OR_RETURN(DiffPtr diff, TreeDiff(impl_->fork.get(), a, b));
  git_diff_stats* sraw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_diff_get_stats(&sraw, diff.get()), "diff stats"));
  StatsPtr stats(sraw);
  TreeDistance d;
  d.files = static_cast<int>(git_diff_stats_files_changed(stats.get()));
  d.lines = static_cast<int>(git_diff_stats_insertions(stats.get()) + git_diff_stats_deletions(stats.get()));
  return d;
}

namespace {

struct BlobFilter {
  bool all;  // every blob, ignoring names and oids
  const std::unordered_set<std::string>* names;
  std::vector<git_oid> oids;  // sorted, for binary search
  std::vector<std::pair<std::string, std::string>>* out;
};

int CollectMatchingBlob(const char* root, const git_tree_entry* entry, void* payload) {
  if (git_tree_entry_type(entry) != GIT_OBJECT_BLOB) return 0;
  auto* f = static_cast<BlobFilter*>(payload);
  const git_oid* id = git_tree_entry_id(entry);
  const char* name = git_tree_entry_name(entry);
  bool by_id = f->all || std::binary_search(f->oids.begin(), f->oids.end(), *id,
                                            [](const git_oid& a, const git_oid& b) { return git_oid_cmp(&a, &b) < 0; });
  if (by_id || f->names->count(name)) f->out->emplace_back(std::string(root) + name, OidHex(*id));
  return 0;
}

}  // namespace

Result<std::vector<std::pair<std::string, std::string>>> PairRepo::TreeBlobs(const std::string& commit) const {
  FS_ASSIGN_OR_RETURN(TreePtr tree, CommitTree(impl_->fork.get(), commit));
  std::vector<std::pair<std::string, std::string>> out;
  const std::unordered_set<std::string> no_names;
  BlobFilter filter{true, &no_names, {}, &out};
  FS_RETURN_IF_ERROR(FromGit(git_tree_walk(tree.get(), GIT_TREEWALK_PRE, CollectMatchingBlob, &filter), "tree walk"));
  return out;
}

Result<std::vector<std::pair<std::string, std::string>>> PairRepo::TreeBlobsMatching(
    const std::string& commit, const std::unordered_set<std::string>& names,
    const std::unordered_set<std::string>& oids) const {
  FS_ASSIGN_OR_RETURN(TreePtr tree, CommitTree(impl_->fork.get(), commit));
  std::vector<std::pair<std::string, std::string>> out;
  BlobFilter filter{false, &names, {}, &out};
  for (const auto& hex : oids) {
    git_oid oid;
    if (git_oid_fromstr(&oid, hex.c_str()) == 0) filter.oids.push_back(oid);
  }
  std::sort(filter.oids.begin(), filter.oids.end(),
            [](const git_oid& a, const git_oid& b) { return git_oid_cmp(&a, &b) < 0; });
  FS_RETURN_IF_ERROR(FromGit(git_tree_walk(tree.get(), GIT_TREEWALK_PRE, CollectMatchingBlob, &filter), "tree walk"));
  return out;
}

std::string PairRepo::BlobText(const std::string& oid_hex, size_t max_bytes) const {
  git_oid oid;
  if (git_oid_fromstr(&oid, oid_hex.c_str()) < 0) return "";
  git_blob* raw = nullptr;
  if (git_blob_lookup(&raw, impl_->fork.get(), &oid) < 0) return "";
  BlobPtr blob(raw);
  auto size = static_cast<size_t>(git_blob_rawsize(blob.get()));
  if (size > max_bytes) return "";
  return std::string(static_cast<const char*>(git_blob_rawcontent(blob.get())), size);
}

}  // namespace forkscope::analyzer::git
