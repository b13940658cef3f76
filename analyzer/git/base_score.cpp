// PairRepo::ScoreBases and the line counting it uses. Candidates share most of their subtrees with one
// another, so each (tree, fork directory) pair is scored once and each (fork blob, candidate blob)
// pair compared once: scanning thousands of commits costs the subtrees and blobs that changed.
#include "analyzer/git/base_score.h"

#include <git2.h>

#include <algorithm>
#include <map>
#include <unordered_map>

#include "analyzer/git/handles.h"
#include "analyzer/git/repo_impl.h"

namespace forkscope::analyzer::git {

std::vector<uint64_t> NormalizedLineHashes(std::string_view text) {
  std::vector<uint64_t> out;
  if (text.find('\0') != std::string_view::npos) return out;
  uint64_t h = 1469598103934665603ULL;  // FNV-1a over the line's non-whitespace bytes
  bool any = false;
  for (char c : text) {
    if (c == '\n') {
      if (any) out.push_back(h);
      h = 1469598103934665603ULL, any = false;
    } else if (c != ' ' && c != '\t' && c != '\r' && c != '\f' && c != '\v') {
      h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
      any = true;
    }
  }
  if (any) out.push_back(h);
  std::sort(out.begin(), out.end());
  return out;
}

KeptLines CountKeptLines(const std::vector<uint64_t>& fork, const std::vector<uint64_t>& candidate) {
  KeptLines k;
  size_t i = 0, j = 0;
  while (i < fork.size() && j < candidate.size()) {
    if (fork[i] < candidate[j]) {
      ++i;
    } else if (candidate[j] < fork[i]) {
      ++j;
    } else {
      ++k.kept, ++i, ++j;
    }
  }
  k.extra = static_cast<int>(candidate.size()) - k.kept;
  return k;
}

namespace {

constexpr size_t kMaxBlobBytes = 4 << 20;  // larger blobs count as unchanged or not at all

std::string OidKey(const git_oid& oid) { return std::string(reinterpret_cast<const char*>(oid.id), GIT_OID_RAWSZ); }

uint64_t Mix(uint64_t x) {  // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// The fork head's files as a directory tree, each with its blob and a position number.
struct ForkDir {
  struct File {
    std::string name;
    git_oid blob;
    uint64_t position;
  };
  std::map<std::string, ForkDir> dirs;
  std::vector<File> files;
};

struct Partial {
  int kept = 0;
  int extra = 0;
  int same = 0;
  uint64_t signature = 0;
};

class Scorer {
 public:
  explicit Scorer(git_repository* repo) : repo_(repo) {}

  Status LoadFork(const git_tree* tree, ForkDir& dir) {
    for (size_t i = 0; i < git_tree_entrycount(tree); ++i) {
      const git_tree_entry* e = git_tree_entry_byindex(tree, i);
      const std::string name = git_tree_entry_name(e);
      if (git_tree_entry_type(e) == GIT_OBJECT_TREE) {
        FS_ASSIGN_OR_RETURN(TreePtr sub, Tree(git_tree_entry_id(e)));
        FS_RETURN_IF_ERROR(LoadFork(sub.get(), dir.dirs[name]));
      } else if (git_tree_entry_type(e) == GIT_OBJECT_BLOB) {
        dir.files.push_back({name, *git_tree_entry_id(e), ++fork_files_});
        fork_lines_ += static_cast<int>(Lines(*git_tree_entry_id(e)).size());
      }
    }
    return Status::Ok();
  }

  // The fork files under dir scored against the same paths under tree.
  Result<Partial> Score(const git_tree* tree, const ForkDir& dir) {
    auto key = std::make_pair(OidKey(*git_tree_id(tree)), &dir);
    if (auto it = trees_.find(key); it != trees_.end()) return it->second;
    Partial p;
    for (const auto& f : dir.files) {
      const git_tree_entry* e = git_tree_entry_byname(tree, f.name.c_str());
      if (!e || git_tree_entry_type(e) != GIT_OBJECT_BLOB) continue;
      const git_oid* cand = git_tree_entry_id(e);
      uint64_t head = 0;
      for (int b = 0; b < 8; ++b) head = head << 8 | cand->id[b];
      p.signature += Mix(f.position * 0x100000001b3ULL ^ head);
      if (git_oid_equal(cand, &f.blob)) {
        p.kept += static_cast<int>(Lines(f.blob).size());
        ++p.same;
        continue;
      }
      const KeptLines k = Pair(f.blob, *cand);
      p.kept += k.kept;
      p.extra += k.extra;
    }
    for (const auto& [name, sub] : dir.dirs) {
      const git_tree_entry* e = git_tree_entry_byname(tree, name.c_str());
      if (!e || git_tree_entry_type(e) != GIT_OBJECT_TREE) continue;
      FS_ASSIGN_OR_RETURN(TreePtr subtree, Tree(git_tree_entry_id(e)));
      FS_ASSIGN_OR_RETURN(Partial s, Score(subtree.get(), sub));
      p.kept += s.kept, p.extra += s.extra, p.same += s.same, p.signature += s.signature;
    }
    trees_.emplace(key, p);
    return p;
  }

  int fork_files() const { return static_cast<int>(fork_files_); }
  int fork_lines() const { return fork_lines_; }

 private:
  Result<TreePtr> Tree(const git_oid* oid) {
    git_tree* raw = nullptr;
    int rc = git_tree_lookup(&raw, repo_, oid);
    if (rc < 0) return FromGit(rc, "tree " + OidHex(*oid));
    return TreePtr(raw);
  }

  // A blob's NormalizedLineHashes, read once; a missing or oversized blob has none.
  const std::vector<uint64_t>& Lines(const git_oid& oid) {
    std::string key = OidKey(oid);
    if (auto it = lines_.find(key); it != lines_.end()) return it->second;
    std::vector<uint64_t> hashes;
    git_blob* raw = nullptr;
    if (git_blob_lookup(&raw, repo_, &oid) == 0) {
      BlobPtr blob(raw);
      auto size = static_cast<size_t>(git_blob_rawsize(blob.get()));
      if (size <= kMaxBlobBytes)
        hashes =
            NormalizedLineHashes(std::string_view(static_cast<const char*>(git_blob_rawcontent(blob.get())), size));
    }
    return lines_.emplace(std::move(key), std::move(hashes)).first->second;
  }

  KeptLines Pair(const git_oid& fork, const git_oid& candidate) {
    auto key = std::make_pair(OidKey(fork), OidKey(candidate));
    if (auto it = pairs_.find(key); it != pairs_.end()) return it->second;
    const KeptLines k = CountKeptLines(Lines(fork), Lines(candidate));
    pairs_.emplace(std::move(key), k);
    // A candidate blob is compared with one fork blob (its path's): its lines are not needed again.
    lines_.erase(OidKey(candidate));
    return k;
  }

  git_repository* repo_;
  uint64_t fork_files_ = 0;
  int fork_lines_ = 0;
  std::unordered_map<std::string, std::vector<uint64_t>> lines_;  // by raw blob id
  std::map<std::pair<std::string, std::string>, KeptLines> pairs_;
  std::map<std::pair<std::string, const ForkDir*>, Partial> trees_;
};

Result<TreePtr> CommitTreeOf(git_repository* repo, const std::string& sha) {
  git_oid oid;
  if (sha.size() != GIT_OID_HEXSZ || git_oid_fromstr(&oid, sha.c_str()) < 0)
    return InvalidArgument("not an object id: '" + sha + "'");
  git_commit* craw = nullptr;
  int rc = git_commit_lookup(&craw, repo, &oid);
  if (rc < 0) return FromGit(rc, "commit " + sha);
  CommitPtr commit(craw);
  git_tree* traw = nullptr;
  rc = git_commit_tree(&traw, commit.get());
  if (rc < 0) return FromGit(rc, "tree of " + sha);
  return TreePtr(traw);
}

}  // namespace

Result<BaseScores> PairRepo::ScoreBases(const std::string& fork_sha, const std::vector<std::string>& candidates) const {
  git_repository* repo = impl_->fork.get();
  Scorer scorer(repo);
  ForkDir fork;
  FS_ASSIGN_OR_RETURN(TreePtr fork_tree, CommitTreeOf(repo, fork_sha));
  FS_RETURN_IF_ERROR(scorer.LoadFork(fork_tree.get(), fork));
  BaseScores out;
  out.fork_files = scorer.fork_files();
  out.fork_lines = scorer.fork_lines();
  out.candidates.reserve(candidates.size());
  for (const auto& sha : candidates) {
    FS_ASSIGN_OR_RETURN(TreePtr tree, CommitTreeOf(repo, sha));
    FS_ASSIGN_OR_RETURN(Partial p, scorer.Score(tree.get(), fork));
    out.candidates.push_back({sha, p.kept, p.extra, p.same, p.signature});
  }
  return out;
}

}  // namespace forkscope::analyzer::git
