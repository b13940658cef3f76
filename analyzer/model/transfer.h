// Transfer progress as values (every layer may report or show it; analyzer/git fills it in): the phases
// of a fetch, a checkout or a pack consolidation, their counters and percentages, what one fetch moved,
// and the log lines that show progress off a terminal (one line per 10% step of each phase of each
// transfer, phases named, never going back). Pure values; ProgressLines is one transfer's, not
// thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace forkscope::analyzer {

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

// What one fetch moved, from libgit2's transfer counters (git_indexer_progress).
struct FetchStats {
  bool fetched = false;           // a fetch ran (false: skipped, the refs were present and fetch was off)
  unsigned total_objects = 0;     // objects in the pack the remote sent
  unsigned received_objects = 0;  // of those, received
  unsigned local_objects = 0;     // objects the pack referred to that were already here (thin packs)
  uint64_t received_bytes = 0;
  int linked_files = 0;  // object files hard-linked from a local source before the fetch
};

// The key=value line for a report ("fetch url=... phase=\"receiving objects\" progress=40% ..."), or ""
// when it reaches no new step.
class ProgressLines {
 public:
  // The key=value line for p ("fetch url=... phase=\"receiving objects\" progress=40% ..."), or "" when
  // it reaches no new step.
  std::string Next(const TransferProgress& p);

 private:
  std::string url_;
  int phase_ = -1;
  int step_ = -1;
};

}  // namespace forkscope::analyzer
