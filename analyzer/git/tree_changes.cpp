#include "analyzer/git/tree_changes.h"

#include <algorithm>

#include "analyzer/git/similarity.h"

namespace forkscope::analyzer::git {
namespace {

// Sizes from object headers (no inflating), contents from blobs: what git reads for scoring.
class OdbContent : public RenameContent {
 public:
  explicit OdbContent(git_repository* repo) : repo_(repo) {}

  Result<uint64_t> Size(const std::string& oid) override {
    FS_ASSIGN_OR_RETURN(git_oid id, Parse(oid));
    if (!odb_) {
      git_odb* raw = nullptr;
      FS_RETURN_IF_ERROR(FromGit(git_repository_odb(&raw, repo_), "object database"));
      odb_.reset(raw);
    }
    size_t size = 0;
    git_object_t type = GIT_OBJECT_INVALID;
    FS_RETURN_IF_ERROR(FromGit(git_odb_read_header(&size, &type, odb_.get(), &id), "blob header " + oid));
    return static_cast<uint64_t>(size);
  }

  Result<std::string> Content(const std::string& oid) override {
    FS_ASSIGN_OR_RETURN(git_oid id, Parse(oid));
    git_blob* raw = nullptr;
    FS_RETURN_IF_ERROR(FromGit(git_blob_lookup(&raw, repo_, &id), "blob " + oid));
    BlobPtr blob(raw);
    return std::string(static_cast<const char*>(git_blob_rawcontent(blob.get())),
                       static_cast<size_t>(git_blob_rawsize(blob.get())));
  }

 private:
  static Result<git_oid> Parse(const std::string& hex) {
    git_oid id;
    if (git_oid_fromstr(&id, hex.c_str()) < 0) return InvalidArgument("not an object id: '" + hex + "'");
    return id;
  }

  git_repository* repo_;
  OdbPtr odb_;
};

const std::string& PathOf(const TreeChange& c) { return c.status == 'D' ? c.old_path : c.new_path; }

// The plain tree diff, type changes kept whole as git keeps them, sorted as git's queue is.
Result<std::vector<TreeChange>> PlainChanges(git_repository* repo, git_tree* old_tree, git_tree* new_tree) {
  git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
  opts.flags |= GIT_DIFF_INCLUDE_TYPECHANGE;
  git_diff* raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_diff_tree_to_tree(&raw, repo, old_tree, new_tree, &opts), "tree diff"));
  DiffPtr diff(raw);
  std::vector<TreeChange> out;
  const size_t n = git_diff_num_deltas(diff.get());
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const git_diff_delta* d = git_diff_get_delta(diff.get(), i);
    TreeChange c;
    switch (d->status) {
      case GIT_DELTA_ADDED:
        c.status = 'A';
        break;
      case GIT_DELTA_DELETED:
        c.status = 'D';
        break;
      case GIT_DELTA_MODIFIED:
        c.status = 'M';
        break;
      case GIT_DELTA_TYPECHANGE:
        c.status = 'T';
        break;
      default:
        continue;  // a tree-to-tree diff has no other kinds
    }
    if (c.status != 'A') {
      c.old_path = d->old_file.path;
      c.old_id = d->old_file.id;
      c.old_mode = d->old_file.mode;
    }
    if (c.status != 'D') {
      c.new_path = d->new_file.path;
      c.new_id = d->new_file.id;
      c.new_mode = d->new_file.mode;
    }
    out.push_back(std::move(c));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const TreeChange& a, const TreeChange& b) { return PathOf(a) < PathOf(b); });
  return out;
}

}  // namespace

Result<TreeChanges> DiffTreesWithRenames(git_repository* repo, git_tree* old_tree, git_tree* new_tree,
                                         const RenameOptions& options) {
  TreeChanges result;
  FS_ASSIGN_OR_RETURN(std::vector<TreeChange> changes, PlainChanges(repo, old_tree, new_tree));
  std::vector<RenameEntry> sources, destinations;
  std::vector<size_t> source_at, destination_at;  // indices into changes
  for (size_t i = 0; i < changes.size(); ++i) {
    const TreeChange& c = changes[i];
    if (c.status == 'D') {
      sources.push_back({c.old_path, c.old_mode, OidHex(c.old_id)});
      source_at.push_back(i);
    } else if (c.status == 'A') {
      destinations.push_back({c.new_path, c.new_mode, OidHex(c.new_id)});
      destination_at.push_back(i);
    }
  }
  OdbContent content(repo);
  FS_ASSIGN_OR_RETURN(RenameResult renames, FindRenames(sources, destinations, content, options));
  result.inexact_renames_skipped = renames.inexact_skipped;
  std::vector<bool> consumed(changes.size(), false);
  for (const RenamePair& p : renames.pairs) {
    const TreeChange& from = changes[source_at[p.source]];
    TreeChange& to = changes[destination_at[p.destination]];
    to.status = 'R';
    to.old_path = from.old_path;
    to.old_id = from.old_id;
    to.old_mode = from.old_mode;
    to.similarity = SimilarityPercent(p.score);
    consumed[source_at[p.source]] = true;
  }
  result.changes.reserve(changes.size() - renames.pairs.size());
  for (size_t i = 0; i < changes.size(); ++i)
    if (!consumed[i]) result.changes.push_back(std::move(changes[i]));
  return result;
}

}  // namespace forkscope::analyzer::git
