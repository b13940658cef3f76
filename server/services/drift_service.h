// Drift after every sync: a SyncHook that rebuilds the analysed pair from the sync's outcome, computes
// its drift report (analyzer/drift.h) and appends it to the fork's history (storage/drift_store.h).
// The hook runs on the sync worker's thread with the worker's Store; it keeps no state of its own.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "analyzer/drift/drift.h"
#include "base/clock.h"
#include "server/services/analysis_service.h"
#include "server/services/sync_service.h"

namespace forkscope::server {

// The drift report of a sync's outcome, measured at now (unix seconds); report.fork = fork_name.
Result<analyzer::DriftReport> DriftOfOutcome(const AnalysisOutcome& outcome, const std::string& fork_name, int64_t now,
                                             const analyzer::DriftOptions& options = {});

// A stored report and the figures of the fork's report before it (nullopt: this is its first).
struct StoredDrift {
  analyzer::DriftReport report;
  std::optional<analyzer::DriftSummary> previous;
};

// Computes and stores the drift of a registered fork's sync outcome; returns the stored report.
Result<StoredDrift> StoreDriftOfOutcome(storage::Store& store, const std::string& fork_name,
                                        const AnalysisOutcome& outcome, int64_t now,
                                        const analyzer::DriftOptions& options = {});

// Told of every stored report (the alert rules evaluate it, against the previous one), on the sync
// worker's thread.
using DriftListener =
    std::function<void(storage::Store& store, const std::string& fork, const analyzer::DriftReport& report,
                       const std::optional<analyzer::DriftSummary>& previous)>;

// The hook for SyncService::AddSyncHook; reports are dated by clock (which must outlive the hook).
// Failed syncs are skipped, and a failing drift computation is logged without failing the sync.
SyncHook MakeDriftHook(base::Clock& clock, analyzer::DriftOptions options = {}, DriftListener on_report = nullptr);

// At start-up: queues one sync of every registered fork that has no analysis or no drift report yet
// (never synced, or analysed before drift existed), so the API answers without waiting for the
// scheduler.
Status SyncForksMissingData(storage::StoreOpener& stores, SyncService& sync);

}  // namespace forkscope::server
