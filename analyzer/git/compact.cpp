#include "analyzer/git/compact.h"

#include <git2.h>
#include <git2/sys/odb_backend.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <set>
#include <system_error>
#include <thread>
#include <vector>

#include "analyzer/git/global.h"
#include "analyzer/git/handles.h"
#include "base/log.h"

namespace forkscope::analyzer::git {
namespace fs = std::filesystem;
namespace {

using PackbuilderPtr = Handle<git_packbuilder, git_packbuilder_free>;
using RefIterPtr = Handle<git_reference_iterator, git_reference_iterator_free>;

// libgit2's packbuilder cannot reuse packed objects as git repack does: it inflates every object,
// searches a delta for it against a window of 10 others and deflates it again. The delta search, most
// of the time, runs on up to kPackThreads threads (network_bench.py (f), 2 cores: a whole 1 GiB network
// in 100 s, 162 s on one thread, the same peak RSS), and each thread's window is held to kWindowMemory
// however large the objects are (pack.windowMemory, which libgit2 reads only from the config).
constexpr unsigned kPackThreads = 4;
constexpr int64_t kWindowMemory = int64_t{32} << 20;

Status BoundWindowMemory(git_repository* repo) {
  git_config* raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_repository_config(&raw, repo), "config"));
  ConfigPtr config(raw);
  int64_t now = 0;
  if (git_config_get_int64(&now, config.get(), "pack.windowMemory") == 0 && now == kWindowMemory) return Status::Ok();
  return FromGit(git_config_set_int64(config.get(), "pack.windowMemory", kWindowMemory), "set pack.windowMemory");
}

// The packs of dir: (stem, kept) for each pack-*.pack.
std::vector<std::pair<fs::path, bool>> Packs(const fs::path& dir) {
  std::vector<std::pair<fs::path, bool>> packs;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    if (p.extension() != ".pack") continue;
    fs::path stem = p;
    stem.replace_extension();
    packs.emplace_back(stem, fs::exists(fs::path(stem).concat(".keep"), ec));
  }
  return packs;
}

constexpr const char* kRetiredList = "forkscope-retired";

// The list of retired packs (pack dir: <repo>/objects/pack): in the repository's own directory, not in
// objects/pack, where git counts any file that is not a pack's as garbage (`git count-objects -v`,
// `git gc`'s warning). A list an earlier version wrote in objects/pack is moved out, keeping its time
// (and so the grace).
fs::path RetiredList(const fs::path& dir) {
  const fs::path list = dir.parent_path().parent_path() / kRetiredList;
  std::error_code ec;
  if (const fs::path old = dir / kRetiredList; fs::exists(old, ec) && !fs::exists(list, ec)) fs::rename(old, list, ec);
  return list;
}

// The packs of dir named by the retired list at list.
std::set<fs::path> ReadRetired(const fs::path& dir, const fs::path& list) {
  std::set<fs::path> retired;
  std::ifstream in(list);
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line.find('/') == std::string::npos) retired.insert(dir / line);
  return retired;
}

void RemovePack(const fs::path& stem) {
  std::error_code ec;
  // The index first: a pack without one is invisible to readers scanning the folder.
  for (const char* ext : {".idx", ".rev", ".pack"}) fs::remove(fs::path(stem).concat(ext), ec);
}

// Removes the retired packs when the list is older than grace; returns how many went.
size_t RemoveRetired(const fs::path& dir, const fs::path& list, std::chrono::seconds grace) {
  std::error_code ec;
  const auto written = fs::last_write_time(list, ec);
  if (ec) return 0;  // none retired
  if (fs::file_time_type::clock::now() - written < grace) return 0;
  const std::set<fs::path> retired = ReadRetired(dir, list);
  for (const fs::path& stem : retired) RemovePack(stem);
  fs::remove(list, ec);
  return retired.size();
}

// Every object the repository's refs reach, into pb: commits (and their trees) through one walk of all
// the commits the refs name; a ref to anything else (an annotated tag, a tree) with what it references.
Status InsertReachable(git_repository* repo, git_packbuilder* pb) {
  git_revwalk* walk_raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_revwalk_new(&walk_raw, repo), "revision walk"));
  RevwalkPtr walk(walk_raw);
  git_reference_iterator* it_raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_reference_iterator_new(&it_raw, repo), "list refs"));
  RefIterPtr it(it_raw);
  git_reference* ref_raw = nullptr;
  int rc = 0;
  while ((rc = git_reference_next(&ref_raw, it.get())) == 0) {
    ReferencePtr ref(ref_raw);
    if (git_reference_type(ref.get()) != GIT_REFERENCE_DIRECT) continue;  // HEAD: its target is a ref too
    const git_oid* oid = git_reference_target(ref.get());
    git_object* obj_raw = nullptr;
    if (git_object_lookup(&obj_raw, repo, oid, GIT_OBJECT_ANY) != 0) {
      // A ref to an object this repository lacks (a broken ref): packing around it would drop nothing
      // the ref could give back, but say so.
      base::Log(base::LogArea::kGit)
          ->warn("compact: ref {} names a missing object {}", git_reference_name(ref.get()), OidHex(*oid));
      continue;
    }
    ObjectPtr obj(obj_raw);
    if (git_object_type(obj.get()) == GIT_OBJECT_COMMIT)
      FS_RETURN_IF_ERROR(FromGit(git_revwalk_push(walk.get(), oid), "walk from " + OidHex(*oid)));
    else
      FS_RETURN_IF_ERROR(FromGit(git_packbuilder_insert_recur(pb, oid, nullptr), "pack " + OidHex(*oid)));
  }
  if (rc != GIT_ITEROVER) return FromGit(rc, "list refs");
  return FromGit(git_packbuilder_insert_walk(pb, walk.get()), "pack the history");
}

// An object database of the pack at stem alone (read through its index).
Result<OdbPtr> OnePackOdb(const fs::path& stem) {
  git_odb* odb_raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_odb_new(&odb_raw), "object database"));
  OdbPtr odb(odb_raw);
  git_odb_backend* backend = nullptr;
  const std::string index = fs::path(stem).concat(".idx").string();
  FS_RETURN_IF_ERROR(FromGit(git_odb_backend_one_pack(&backend, index.c_str()), "open " + index));
  if (const int rc = git_odb_add_backend(odb.get(), backend, 1); rc < 0) {
    backend->free(backend);
    return FromGit(rc, "open " + index);
  }
  return odb;
}

// Relays libgit2's pack builder and indexer callbacks to a ProgressFn as one phase: the delta search is
// the first half, writing the pack the second. A false from it is remembered and handed back to libgit2
// at its next callback that can stop: adding objects and writing can; 1.5's delta search ignores it.
class ProgressRelay {
 public:
  ProgressRelay(const ProgressFn& progress, const std::string& repo_path) : progress_(progress) {
    p_.url = repo_path;
    p_.phase = TransferPhase::kConsolidating;
  }
  bool cancelled() const { return cancelled_; }

  static int Building(int stage, uint32_t current, uint32_t total, void* payload) {
    auto* self = static_cast<ProgressRelay*>(payload);
    if (stage == GIT_PACKBUILDER_DELTAFICATION) return self->Report(current, uint64_t{2} * total);
    return self->Report(0, 0);  // adding objects: how many there will be is not known yet
  }
  static int Writing(const git_indexer_progress* stats, void* payload) {
    auto* self = static_cast<ProgressRelay*>(payload);
    return self->Report(uint64_t{stats->total_objects} + stats->indexed_objects, uint64_t{2} * stats->total_objects);
  }

 private:
  int Report(uint64_t done, uint64_t total) {
    if (progress_ && !cancelled_) {
      p_.received_objects = static_cast<unsigned>(std::min<uint64_t>(done, UINT32_MAX));
      p_.total_objects = static_cast<unsigned>(std::min<uint64_t>(total, UINT32_MAX));
      cancelled_ = !progress_(p_);
    }
    return cancelled_ ? GIT_EUSER : 0;
  }

  const ProgressFn& progress_;
  TransferProgress p_;
  bool cancelled_ = false;
};

// What a consolidation rolls into one pack.
struct Roll {
  bool whole = true;             // every object the refs reach, from all the live packs
  std::vector<fs::path> packs;   // the packs retired once the new one is written
  std::vector<git_oid> objects;  // geometric: the objects of those packs the kept one lacks
};

// All the live packs, unless the largest holds at least twice what the others hold that it lacks (a
// network's history, beside the packs of the fetches since — or beside a local fork's linked packs,
// which hold that history again). Then only the others are rolled up, and only their objects the
// largest lacks, as `git repack --geometric=2` does: the consolidation costs what the others add, not
// the whole history again (libgit2 rewrites every object it packs, the history's 1 GiB in a minute and
// more). What a pack adds is estimated from the share of its objects the largest lacks (index lookups).
Result<Roll> PlanRoll(const std::vector<fs::path>& live) {
  Roll whole{true, live, {}};
  if (live.empty()) return whole;
  std::error_code ec;
  std::vector<uintmax_t> bytes;
  size_t at = 0;
  for (size_t i = 0; i < live.size(); ++i) {
    bytes.push_back(fs::file_size(fs::path(live[i]).concat(".pack"), ec));
    if (ec) return whole;  // a pack that cannot be measured: roll everything
    if (bytes[i] > bytes[at]) at = i;
  }
  FS_ASSIGN_OR_RETURN(OdbPtr largest, OnePackOdb(live[at]));
  Roll geometric{false, {}, {}};
  double adds = 0;  // bytes the other packs add to the largest, estimated
  for (size_t i = 0; i < live.size(); ++i) {
    if (i == at) continue;
    FS_ASSIGN_OR_RETURN(OdbPtr pack, OnePackOdb(live[i]));
    struct Count {
      git_odb* largest;
      std::vector<git_oid>* lacking;
      size_t all = 0;
    } count{largest.get(), &geometric.objects};
    auto visit = [](const git_oid* id, void* payload) {
      auto* c = static_cast<Count*>(payload);
      ++c->all;
      if (!git_odb_exists(c->largest, id)) c->lacking->push_back(*id);
      return 0;
    };
    const size_t before = geometric.objects.size();
    FS_RETURN_IF_ERROR(FromGit(git_odb_foreach(pack.get(), visit, &count), "list the objects of " + live[i].string()));
    if (count.all > 0)
      adds += static_cast<double>(bytes[i]) * static_cast<double>(geometric.objects.size() - before) /
              static_cast<double>(count.all);
    geometric.packs.push_back(live[i]);
  }
  if (static_cast<double>(bytes[at]) >= 2 * adds) return geometric;
  return whole;
}

}  // namespace

size_t CountPacks(const std::string& repo_path) { return Packs(fs::path(repo_path) / "objects" / "pack").size(); }

Result<CompactStats> CompactPacks(const std::string& repo_path, size_t pack_limit, std::chrono::seconds grace,
                                  const ProgressFn& progress) {
  const fs::path dir = fs::path(repo_path) / "objects" / "pack";
  CompactStats stats;
  const fs::path list = RetiredList(dir);
  stats.packs_removed = RemoveRetired(dir, list, grace);
  const std::set<fs::path> retired = ReadRetired(dir, list);
  std::vector<fs::path> live;
  for (const auto& [stem, kept] : Packs(dir))
    if (!kept && !retired.count(stem)) live.push_back(stem);
  stats.packs_before = live.size();
  if (live.size() <= pack_limit) return stats;
  GlobalInit();
  git_repository* repo_raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_repository_open_bare(&repo_raw, repo_path.c_str()), "open " + repo_path));
  RepoPtr repo(repo_raw);
  FS_RETURN_IF_ERROR(BoundWindowMemory(repo.get()));
  git_packbuilder* pb_raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_packbuilder_new(&pb_raw, repo.get()), "pack builder"));
  PackbuilderPtr pb(pb_raw);
  git_packbuilder_set_threads(pb.get(), std::clamp(std::thread::hardware_concurrency(), 1u, kPackThreads));
  ProgressRelay relay(progress, repo_path);
  FS_RETURN_IF_ERROR(FromGit(git_packbuilder_set_callbacks(pb.get(), ProgressRelay::Building, &relay), "progress"));
  // A step that failed because progress asked to stop is a cancel; nothing is written or retired then.
  auto step = [&](Status s) {
    return !s.ok() && relay.cancelled() ? Cancelled("consolidation of " + repo_path + " cancelled") : s;
  };
  FS_ASSIGN_OR_RETURN(const Roll roll, PlanRoll(live));
  stats.whole = roll.whole;
  if (roll.whole) {
    FS_RETURN_IF_ERROR(step(InsertReachable(repo.get(), pb.get())));
  } else {
    for (const git_oid& id : roll.objects)
      FS_RETURN_IF_ERROR(step(FromGit(git_packbuilder_insert(pb.get(), &id, nullptr), "pack " + OidHex(id))));
  }
  fs::path fresh;  // none when the packs rolled up add nothing to the largest: they are only retired
  if (git_packbuilder_object_count(pb.get()) > 0) {
    FS_RETURN_IF_ERROR(step(
        FromGit(git_packbuilder_write(pb.get(), dir.c_str(), 0, ProgressRelay::Writing, &relay), "write the pack")));
    fresh = dir / (std::string("pack-") + git_packbuilder_name(pb.get()));
  }
  stats.objects = git_packbuilder_object_count(pb.get());
  // The new pack is complete (its index written last); the old ones are listed for removal after the
  // grace, with those still waiting from before.
  std::ofstream out(list, std::ios::trunc);
  for (const fs::path& stem : retired)
    if (stem != fresh) out << stem.filename().string() << "\n";  // never retire the pack just written
  for (const fs::path& stem : roll.packs) {
    if (stem == fresh) continue;
    out << stem.filename().string() << "\n";
    ++stats.packs_retired;
  }
  out.close();
  if (!out) return Unavailable("cannot write " + list.string());
  base::Log(base::LogArea::kGit)
      ->info("network packs consolidated path={} packs={} objects={} retired={} whole={}", repo_path,
             stats.packs_before, stats.objects, stats.packs_retired, stats.whole);
  return stats;
}

}  // namespace forkscope::analyzer::git
