#include "analyzer/git/checkout.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "analyzer/git/checkout_internal.h"
#include "analyzer/git/handles.h"
#include "analyzer/git/repo_impl.h"
#include "analyzer/model/transfer.h"

namespace forkscope::analyzer::git {
namespace fs = std::filesystem;
namespace {

using checkout_internal::Gitlink;

Result<RepoPtr> OpenAny(const std::string& path) {
  GlobalInit();
  git_repository* raw = nullptr;
  // No search upwards: the caller names the repository exactly.
  int rc = git_repository_open_ext(&raw, path.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr);
  if (rc < 0) return FromGit(rc, "open repository " + path);
  return RepoPtr(raw);
}

Result<ObjectPtr> PeelToCommit(git_repository* repo, const std::string& rev) {
  if (rev.empty()) return InvalidArgument("empty revision");
  git_object* obj = nullptr;
  int rc = git_revparse_single(&obj, repo, rev.c_str());
  if (rc < 0) return FromGit(rc, "revision '" + rev + "'");
  ObjectPtr owned(obj);
  git_object* commit = nullptr;
  rc = git_object_peel(&commit, owned.get(), GIT_OBJECT_COMMIT);
  if (rc < 0) return InvalidArgument("revision '" + rev + "' is not a commit");
  return ObjectPtr(commit);
}

Status WriteFile(const std::string& path, const char* data, size_t size, bool executable) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, executable ? 0777 : 0666);
  if (fd < 0) return Unavailable("cannot write " + path + ": " + std::strerror(errno));
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      return Unavailable("cannot write " + path + ": " + std::strerror(err));
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return ::close(fd) == 0 ? Status::Ok() : Unavailable("cannot write " + path + ": " + std::strerror(errno));
}

// One blob: a symbolic link holds its target; a file gets the repository's .gitattributes filters (as
// of the commit being written) and keeps its executable bit.
Status WriteBlob(git_repository* repo, const git_tree_entry* entry, const std::string& rel, const std::string& full,
                 const git_oid& commit) {
  git_blob* raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_blob_lookup(&raw, repo, git_tree_entry_id(entry)), "blob of " + rel));
  BlobPtr blob(raw);
  const git_filemode_t mode = git_tree_entry_filemode(entry);
  if (mode == GIT_FILEMODE_LINK) {
    std::string target(static_cast<const char*>(git_blob_rawcontent(blob.get())),
                       static_cast<size_t>(git_blob_rawsize(blob.get())));
    if (::symlink(target.c_str(), full.c_str()) != 0)
      return Unavailable("cannot link " + full + ": " + std::strerror(errno));
    return Status::Ok();
  }
  git_blob_filter_options opts = GIT_BLOB_FILTER_OPTIONS_INIT;
  opts.flags |= GIT_BLOB_FILTER_ATTRIBUTES_FROM_COMMIT;
  // The default CHECK_FOR_BINARY answers a binary blob with an empty buffer (a 0-byte weight file or .so);
  // git's own checkout filters every blob, and its crlf filter leaves binary content alone by itself.
  opts.flags &= ~static_cast<uint32_t>(GIT_BLOB_FILTER_CHECK_FOR_BINARY);
  git_oid_cpy(&opts.attr_commit_id, &commit);
  git_buf buf = GIT_BUF_INIT;
  int rc = git_blob_filter(&buf, blob.get(), rel.c_str(), &opts);
  Status st =
      rc < 0 ? FromGit(rc, "filter " + rel) : WriteFile(full, buf.ptr, buf.size, mode == GIT_FILEMODE_BLOB_EXECUTABLE);
  git_buf_dispose(&buf);
  return st;
}

struct WalkState {
  git_repository* repo;
  const git_oid* commit;
  std::string dest;
  std::vector<Gitlink>* gitlinks;
  Status status;
  // Progress: one "checking out" line per 10% of the tree's files (none without a log).
  const std::function<void(const std::string&)>* log = nullptr;
  TransferProgress progress = {};
  ProgressLines lines = {};
};

int CountBlob(const char*, const git_tree_entry* entry, void* payload) {
  if (git_tree_entry_type(entry) == GIT_OBJECT_BLOB) ++*static_cast<unsigned*>(payload);
  return 0;
}

int OnEntry(const char* root, const git_tree_entry* entry, void* payload) {
  auto* w = static_cast<WalkState*>(payload);
  const std::string rel = std::string(root) + git_tree_entry_name(entry);
  const std::string full = w->dest + "/" + rel;
  std::error_code ec;
  switch (git_tree_entry_type(entry)) {
    case GIT_OBJECT_TREE:
    case GIT_OBJECT_COMMIT:  // a submodule: an empty directory, filled later (or not)
      fs::create_directory(full, ec);
      if (ec) w->status = Unavailable("cannot create " + full + ": " + ec.message());
      if (w->status.ok() && git_tree_entry_type(entry) == GIT_OBJECT_COMMIT)
        w->gitlinks->push_back(Gitlink{rel, *git_tree_entry_id(entry)});
      break;
    case GIT_OBJECT_BLOB:
      w->status = WriteBlob(w->repo, entry, rel, full, *w->commit);
      if (w->log && w->status.ok()) {
        ++w->progress.received_objects;
        if (std::string line = w->lines.Next(w->progress); !line.empty()) (*w->log)(line);
      }
      break;
    default:
      break;
  }
  return w->status.ok() ? 0 : GIT_EUSER;
}

}  // namespace

namespace checkout_internal {

Status WriteTree(git_repository* repo, const git_oid& commit, const std::string& dest, std::vector<Gitlink>& gitlinks,
                 const std::function<void(const std::string&)>& log, const std::string& label) {
  git_commit* raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_commit_lookup(&raw, repo, &commit), "commit " + OidHex(commit)));
  CommitPtr owned(raw);
  git_tree* tree_raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_commit_tree(&tree_raw, owned.get()), "tree of " + OidHex(commit)));
  TreePtr tree(tree_raw);
  WalkState state{repo, &commit, dest, &gitlinks, Status::Ok()};
  if (log) {
    // The files to write, counted first (trees only: no blob is read) so progress has a total.
    unsigned total = 0;
    FS_RETURN_IF_ERROR(FromGit(git_tree_walk(tree.get(), GIT_TREEWALK_PRE, CountBlob, &total), "count files"));
    state.log = &log;
    state.progress.url = label;
    state.progress.phase = TransferPhase::kCheckingOut;
    state.progress.total_objects = total;
  }
  int rc = git_tree_walk(tree.get(), GIT_TREEWALK_PRE, OnEntry, &state);
  if (!state.status.ok()) return state.status;
  return FromGit(rc, "write the tree of " + OidHex(commit));
}

Status CheckoutInto(const std::string& repo_path, const git_oid& commit, const std::string& dest,
                    const CheckoutOptions& options, const Level& level) {
  FS_ASSIGN_OR_RETURN(RepoPtr repo, OpenAny(repo_path));
  std::vector<Gitlink> gitlinks;
  FS_RETURN_IF_ERROR(WriteTree(repo.get(), commit, dest, gitlinks, options.log,
                               level.prefix.empty() ? "." : level.prefix.substr(0, level.prefix.size() - 1)));
  if (gitlinks.empty()) return Status::Ok();
  if (!options.submodules) {
    if (options.log) options.log(std::to_string(gitlinks.size()) + " submodule(s) left empty (the recipe opts out)");
    return Status::Ok();
  }
  return CheckoutSubmodules(repo.get(), repo_path, dest, gitlinks, options, level);
}

}  // namespace checkout_internal

Result<std::string> ResolveRevision(const std::string& repo_path, const std::string& rev, const std::string& refs) {
  FS_ASSIGN_OR_RETURN(RepoPtr repo, OpenAny(repo_path));
  FS_ASSIGN_OR_RETURN(ObjectPtr commit, RevparseIn(repo.get(), refs, rev));
  return OidHex(*git_object_id(commit.get()));
}

Status CheckoutCommit(const std::string& repo_path, const std::string& sha, const std::string& dest,
                      const CheckoutOptions& options) {
  if (sha.size() != GIT_OID_HEXSZ) return InvalidArgument("not a full commit id: '" + sha + "'");
  git_oid oid;
  if (git_oid_fromstr(&oid, sha.c_str()) != 0) return InvalidArgument("not a full commit id: '" + sha + "'");
  std::error_code ec;
  if (fs::exists(dest, ec)) return AlreadyExists("work tree " + dest + " already exists");
  {
    FS_ASSIGN_OR_RETURN(RepoPtr repo, OpenAny(repo_path));
    FS_ASSIGN_OR_RETURN(ObjectPtr commit, PeelToCommit(repo.get(), sha));
  }
  fs::create_directory(dest, ec);
  if (ec) return Unavailable("cannot create work tree " + dest + ": " + ec.message());
  Status st = checkout_internal::CheckoutInto(repo_path, oid, dest, options, checkout_internal::Level{});
  if (!st.ok()) fs::remove_all(dest, ec);
  return st;
}

}  // namespace forkscope::analyzer::git
