// RevisionFiles (revision_files.h): a commit's tree read through libgit2's object database, no work tree.
#include "analyzer/git/revision_files.h"

#include <cstring>

#include "analyzer/git/fetch_internal.h"
#include "analyzer/git/handles.h"

namespace forkscope::analyzer::git {

struct RevisionFiles::Impl {
  RepoPtr repo;
};

RevisionFiles::RevisionFiles(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RevisionFiles::~RevisionFiles() = default;

Result<std::unique_ptr<RevisionFiles>> RevisionFiles::Open(const std::string& git_dir) {
  GlobalInit();
  git_repository* raw = nullptr;
  const int rc = git_repository_open_ext(&raw, git_dir.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr);
  if (rc == GIT_ENOTFOUND) return NotFound("no git repository at " + git_dir);
  if (rc < 0) return FromGit(rc, "open " + git_dir);
  auto impl = std::make_unique<Impl>();
  impl->repo.reset(raw);
  return std::unique_ptr<RevisionFiles>(new RevisionFiles(std::move(impl)));
}

std::optional<std::string> RevisionFiles::Text(const std::string& commit, const std::string& path,
                                               size_t max_bytes) const {
  git_object* raw_tree = nullptr;
  if (git_revparse_single(&raw_tree, impl_->repo.get(), (commit + "^{tree}").c_str()) < 0) return std::nullopt;
  ObjectPtr tree(raw_tree);
  git_tree_entry* raw_entry = nullptr;
  if (git_tree_entry_bypath(&raw_entry, reinterpret_cast<git_tree*>(tree.get()), path.c_str()) < 0) return std::nullopt;
  std::unique_ptr<git_tree_entry, void (*)(git_tree_entry*)> entry(raw_entry, git_tree_entry_free);
  if (git_tree_entry_type(entry.get()) != GIT_OBJECT_BLOB) return std::nullopt;
  git_blob* raw_blob = nullptr;
  if (git_blob_lookup(&raw_blob, impl_->repo.get(), git_tree_entry_id(entry.get())) < 0) return std::nullopt;
  BlobPtr blob(raw_blob);
  const auto size = static_cast<size_t>(git_blob_rawsize(blob.get()));
  if (size > max_bytes) return std::nullopt;
  const char* data = static_cast<const char*>(git_blob_rawcontent(blob.get()));
  if (std::memchr(data, '\0', size) != nullptr) return std::nullopt;
  return std::string(data, size);
}

std::string RevisionFiles::OriginUrl() const { return ConfiguredRemoteUrl(impl_->repo.get(), "origin"); }

}  // namespace forkscope::analyzer::git
