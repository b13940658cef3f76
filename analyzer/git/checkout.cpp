#include "analyzer/git/checkout.h"

#include <filesystem>
#include <system_error>

#include "analyzer/git/handles.h"
#include "analyzer/git/repo_impl.h"

namespace forkscope::analyzer::git {
namespace fs = std::filesystem;
namespace {

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

}  // namespace

Result<std::string> ResolveRevision(const std::string& repo_path, const std::string& rev, const std::string& refs) {
  FS_ASSIGN_OR_RETURN(RepoPtr repo, OpenAny(repo_path));
  FS_ASSIGN_OR_RETURN(ObjectPtr commit, RevparseIn(repo.get(), refs, rev));
  return OidHex(*git_object_id(commit.get()));
}

namespace {

struct CheckoutPayload {
  const ProgressFn* progress;
  std::string what;
};

void OnCheckout(const char*, size_t completed, size_t total, void* payload) {
  auto* p = static_cast<CheckoutPayload*>(payload);
  TransferProgress tp;
  tp.url = p->what;
  tp.phase = TransferPhase::kCheckingOut;
  tp.received_objects = static_cast<unsigned>(completed);
  tp.total_objects = static_cast<unsigned>(total);
  (*p->progress)(tp);
}

}  // namespace

Status CheckoutCommit(const std::string& repo_path, const std::string& sha, const std::string& dest,
                      const ProgressFn& progress) {
  if (sha.size() != GIT_OID_HEXSZ) return InvalidArgument("not a full commit id: '" + sha + "'");
  std::error_code ec;
  if (fs::exists(dest, ec)) return AlreadyExists("work tree " + dest + " already exists");
  FS_ASSIGN_OR_RETURN(RepoPtr repo, OpenAny(repo_path));
  FS_ASSIGN_OR_RETURN(ObjectPtr commit, PeelToCommit(repo.get(), sha));
  fs::create_directory(dest, ec);
  if (ec) return Unavailable("cannot create work tree " + dest + ": " + ec.message());
  git_checkout_options opts = GIT_CHECKOUT_OPTIONS_INIT;
  // A bare mirror has no index to update: write every file of the tree into the target directory.
  opts.checkout_strategy = GIT_CHECKOUT_FORCE | GIT_CHECKOUT_DONT_UPDATE_INDEX;
  opts.target_directory = dest.c_str();
  CheckoutPayload payload{&progress, repo_path + "@" + sha.substr(0, 12)};
  if (progress) {
    opts.progress_cb = OnCheckout;
    opts.progress_payload = &payload;
  }
  int rc = git_checkout_tree(repo.get(), commit.get(), &opts);
  if (rc < 0) {
    Status st = FromGit(rc, "checkout " + sha + " into " + dest);
    fs::remove_all(dest, ec);
    return st;
  }
  return Status::Ok();
}

}  // namespace forkscope::analyzer::git
