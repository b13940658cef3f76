#include "analyzer/model/transfer.h"

#include <algorithm>
#include <cstdio>

namespace forkscope::analyzer {

const char* PhaseName(TransferPhase phase) {
  switch (phase) {
    case TransferPhase::kReceiving:
      return "receiving objects";
    case TransferPhase::kResolving:
      return "resolving deltas";
    case TransferPhase::kCheckingOut:
      return "checking out";
    case TransferPhase::kConsolidating:
      return "consolidating packs";
  }
  return "";
}

int TransferProgress::PhasePercent() const {
  if (phase == TransferPhase::kResolving) {
    if (total_deltas) return static_cast<int>(100.0 * indexed_deltas / total_deltas);
    return indexed_objects >= total_objects ? 100 : 0;
  }
  return total_objects ? static_cast<int>(100.0 * received_objects / total_objects) : 0;
}

int TransferProgress::Percent() const {
  if (phase == TransferPhase::kCheckingOut || phase == TransferPhase::kConsolidating) return PhasePercent();
  if (total_objects == 0) return 0;
  // Receiving counts for 80%, resolving deltas for the rest. libgit2 counts the deltas only once every
  // object is in, so a received pack is at 80% until every object is indexed: never 100% then 80%.
  if (received_objects < total_objects) return static_cast<int>(80.0 * received_objects / total_objects);
  if (indexed_objects >= total_objects) return 100;
  const double idx = total_deltas ? static_cast<double>(indexed_deltas) / total_deltas : 0.0;
  return static_cast<int>(80.0 + 20.0 * idx);
}

std::string ProgressLines::Next(const TransferProgress& p) {
  const int phase = static_cast<int>(p.phase);
  if (p.url != url_) url_ = p.url, phase_ = -1, step_ = -1;
  if (phase < phase_) return "";
  if (phase > phase_) phase_ = phase, step_ = -1;
  const int step = std::min(10, p.PhasePercent() / 10);
  if (step <= step_) return "";
  step_ = step;
  char line[512];
  if (p.phase == TransferPhase::kCheckingOut)
    std::snprintf(line, sizeof line, "checkout of=%s phase=\"%s\" progress=%d%% files=%u/%u", p.url.c_str(),
                  PhaseName(p.phase), step * 10, p.received_objects, p.total_objects);
  else if (p.phase == TransferPhase::kConsolidating)
    std::snprintf(line, sizeof line, "consolidate network=%s phase=\"%s\" progress=%d%% objects=%u/%u", p.url.c_str(),
                  PhaseName(p.phase), step * 10, p.received_objects, p.total_objects);
  else if (p.phase == TransferPhase::kResolving)
    std::snprintf(line, sizeof line, "fetch url=%s phase=\"%s\" progress=%d%% deltas=%u/%u", p.url.c_str(),
                  PhaseName(p.phase), step * 10, p.indexed_deltas, p.total_deltas);
  else
    std::snprintf(line, sizeof line, "fetch url=%s phase=\"%s\" progress=%d%% objects=%u/%u bytes=%llu", p.url.c_str(),
                  PhaseName(p.phase), step * 10, p.received_objects, p.total_objects,
                  static_cast<unsigned long long>(p.received_bytes));
  return line;
}

}  // namespace forkscope::analyzer
