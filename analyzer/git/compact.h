// Keeping a fork network's object store in few packs. Every fetch into a network writes a pack of its
// own and nothing else ever merges them: a daemon syncing a fork every few minutes piles up thousands,
// each object lookup searches more of them, and libgit2 keeps per-pack state for each one it opens.
// Past a limit, the packs are consolidated into one (git's `gc.autoPackLimit` idea; git repack -a -d):
// every object the refs reach goes into a new pack, then the old packs are removed. Loose objects and
// packs with a .keep file are left alone. Call under the network's lock.
#pragma once

#include <cstddef>
#include <string>

#include "base/status.h"

namespace forkscope::analyzer::git {

// A network with more packs than this is consolidated after a sync's fetches.
inline constexpr size_t kNetworkPackLimit = 32;

struct CompactStats {
  size_t packs_before = 0;  // packs without a .keep file
  size_t packs_removed = 0; // 0: the limit was not passed, nothing done
  size_t objects = 0;       // objects in the new pack
};

// Consolidates the packs of the bare repository at repo_path when it has more than pack_limit of them.
Result<CompactStats> CompactPacks(const std::string& repo_path, size_t pack_limit = kNetworkPackLimit);

// The packs of the repository at repo_path (objects/pack/*.pack), .keep ones included.
size_t CountPacks(const std::string& repo_path);

}  // namespace forkscope::analyzer::git
