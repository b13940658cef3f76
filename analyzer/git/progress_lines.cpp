#include "analyzer/git/progress_lines.h"

#include <algorithm>
#include <cstdio>

namespace forkscope::analyzer::git {

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

}  // namespace forkscope::analyzer::git
