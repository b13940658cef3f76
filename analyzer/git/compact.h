// Keeping a fork network's object store in few packs. Every fetch into a network writes a pack of its
// own and nothing else ever merges them: a daemon syncing a fork every few minutes piles up thousands,
// each object lookup searches more of them, and libgit2 keeps per-pack state for each one it opens.
// Past a limit, the packs are consolidated into one (git's `gc.autoPackLimit` idea; git repack -a -d):
// every object the refs reach goes into a new pack — or, when the largest pack holds at least twice
// what the others add to it (their objects it lacks), those objects of the others (git repack
// --geometric=2), so the history is not rewritten each time, nor when a local fork's linked pack holds
// it again — and the packs rolled into it are retired: listed in <repo>/forkscope-retired (not in
// objects/pack: git counts files there as garbage), and removed by a later call once the grace has
// passed, so a reader that opened the repository before (analyses read a network without its lock)
// still finds every pack it knows of. Loose objects and packs with a .keep file are left alone. Call
// under the network's lock.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include "analyzer/git/transfer.h"
#include "base/status.h"

namespace forkscope::analyzer::git {

// A network with more packs than this is consolidated after a sync's fetches.
inline constexpr size_t kNetworkPackLimit = 32;
// How long retired packs stay for readers that opened the network before they were retired.
inline constexpr std::chrono::seconds kRetiredPackGrace{600};

struct CompactStats {
  size_t packs_before = 0;   // live packs (not .keep, not retired)
  size_t packs_retired = 0;  // 0: the limit was not passed, no new pack
  bool whole = false;        // every reachable object repacked (false: the largest pack kept as it is)
  size_t objects = 0;        // objects in the new pack
  size_t packs_removed = 0;  // retired packs removed now (their grace over)
};

// Removes the packs retired longer than grace ago; then, when the bare repository at repo_path has more
// than pack_limit live packs, writes one pack of everything its refs reach and retires the others — or,
// when the largest holds twice what the others add to it, one pack of the others' objects it lacks
// (none written when they add nothing), retiring them.
// progress (may be empty) hears phase kConsolidating: the delta search is the first half, writing the
// pack the second. It returning false cancels (kCancelled): no pack is written and none retired. libgit2
// 1.5 cannot stop its delta search, so a cancel there takes effect when the search ends, before writing.
Result<CompactStats> CompactPacks(const std::string& repo_path, size_t pack_limit = kNetworkPackLimit,
                                  std::chrono::seconds grace = kRetiredPackGrace, const ProgressFn& progress = {});

// The pack files of the repository at repo_path (objects/pack/*.pack), kept and retired ones included.
size_t CountPacks(const std::string& repo_path);

}  // namespace forkscope::analyzer::git
