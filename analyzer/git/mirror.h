// Bare mirrors of remote repositories under a data directory: one mirror per URL, created with a
// libgit2 clone and refreshed with fetch (all branches and tags, pruned). Each call opens its own
// git_repository; safe to call from several threads on different URLs.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "base/status.h"

namespace forkscope::analyzer::git {

// The phases of a transfer, in the order they run.
enum class TransferPhase { kReceiving, kResolving, kCheckingOut, kConsolidating };
// "receiving objects", "resolving deltas", "checking out", "consolidating packs".
const char* PhaseName(TransferPhase phase);

// Transfer progress of a clone or fetch (or of a checkout: phase kCheckingOut, done/total in
// received_objects/total_objects; or of a network's pack consolidation: phase kConsolidating, url the
// network's path, the same two counters).
struct TransferProgress {
  std::string url;
  unsigned total_objects = 0;
  unsigned received_objects = 0;
  unsigned indexed_objects = 0;  // == total_objects once every object (deltas too) is indexed
  unsigned indexed_deltas = 0;
  unsigned total_deltas = 0;
  uint64_t received_bytes = 0;
  TransferPhase phase = TransferPhase::kReceiving;
  // The whole transfer: receiving counts for 80%, resolving deltas for the rest; never goes down
  // within one transfer (deltas counted before receiving ends do not pull it back).
  int Percent() const;
  // Progress within the current phase, 0-100.
  int PhasePercent() const;
};
// Returns false to cancel the transfer.
using ProgressFn = std::function<bool(const TransferProgress&)>;

struct MirrorOptions {
  std::string data_dir;          // mirrors live in <data_dir>/mirrors/
  bool allow_foreign_owner = false;  // disable libgit2's owner validation (a repo owned by another user)
  ProgressFn progress;           // may be empty
};

// What one fetch moved, from libgit2's transfer counters (git_indexer_progress).
struct FetchStats {
  bool fetched = false;           // a fetch ran (false: skipped, the refs were present and fetch was off)
  unsigned total_objects = 0;     // objects in the pack the remote sent
  unsigned received_objects = 0;  // of those, received
  unsigned local_objects = 0;     // objects the pack referred to that were already here (thin packs)
  uint64_t received_bytes = 0;
  int linked_files = 0;           // object files hard-linked from a local source before the fetch
};

struct MirrorResult {
  std::string path;              // the bare mirror on disk
  bool created = false;          // cloned now (false: fetched)
  FetchStats stats;
};

// Normalises a user-given location: plain local paths become absolute paths; URLs stay as given.
// InvalidArgument for empty or malformed locations, NotFound for a local path that does not exist.
Result<std::string> NormalizeLocation(const std::string& location);

// The mirror directory a URL maps to (stable, readable: <host-path-slug>-<hash>.git), named by the URL
// without credentials (base/url.h): the same for "https://u:p@host/x", "https://***@host/x" and "https://host/x".
std::string MirrorPathFor(const std::string& data_dir, const std::string& url);

// Clones the mirror if missing, else fetches. A failed first clone leaves no directory behind; a first
// clone of a local path or file:// URL hard-links the source's object files (as `git clone --local`)
// where both sit on one filesystem. The
// credentials of an http(s) URL are handed to git when the server asks for them and kept out of the
// mirror's config, its name and the log.
Result<MirrorResult> SyncMirror(const std::string& url, const MirrorOptions& options);

// An exclusive lock on <mirror>.lock for the life of the object: two writers of one mirror (syncs of
// forks that share an upstream, a carry writing its candidate ref; threads of one daemon, or a daemon
// and a CLI run) never write it at once.
class MirrorLock {
 public:
  explicit MirrorLock(const std::string& mirror_path);
  ~MirrorLock();
  MirrorLock(const MirrorLock&) = delete;
  MirrorLock& operator=(const MirrorLock&) = delete;
  bool locked() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// The URL with its userinfo shown as "***", for logs and messages (base::RedactUrl).
std::string RedactUrl(const std::string& url);

}  // namespace forkscope::analyzer::git
