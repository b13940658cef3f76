// The CI gate over an analysis' violations: a severity threshold (--fail-on) and a baseline — the
// fingerprints of findings a fork has accepted (.forkscope-baseline.json, written by
// `forkscope check --write-baseline`), so that only new findings fail, as semgrep and CodeQL
// baselines do. Pure functions: the caller reads and writes the baseline file.
#pragma once

#include <array>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/model/model.h"
#include "base/status.h"

namespace forkscope::analyzer {

inline constexpr const char* kBaselineFileName = ".forkscope-baseline.json";

struct Baseline {
  std::vector<std::string> fingerprints;  // one per accepted finding (repeated for repeated findings)
};

// {"tool": "forkscope", "version": 1, "findings": [{"fingerprint", "rule", "path", "message"}]}, the
// findings in the analysis' order. Only fingerprint is read back; the rest is for reviewers.
nlohmann::json BaselineToJson(const std::vector<Violation>& violations);
// InvalidArgument naming origin when text is not such a document.
Result<Baseline> BaselineFromJson(std::string_view text, const std::string& origin);

// Which violations the baseline accepts (by ViolationFingerprint); each baseline entry accepts one
// violation, so a second copy of an accepted finding is new. kTooLargeToCheckRule findings never are.
std::vector<bool> MatchBaseline(const Baseline& baseline, const std::vector<Violation>& violations);

// A gate fails closed. A file whose diff was too large to keep (FileChange::truncated: its hunks were
// dropped, so no rule read its lines) is a finding of this rule (error, file-wide), which no baseline
// accepts: "file too large to check".
inline constexpr const char* kTooLargeToCheckRule = "file-too-large-to-check";
// Appends one such finding per truncated file to analysis.violations, unless one is there already (a
// stored analysis answered twice). Returns how many the analysis holds.
int AddUncheckedFileFindings(Analysis& analysis);

struct GateVerdict {
  bool pass = true;
  Severity fail_on = Severity::kError;
  int blocking = 0;            // new findings at fail_on or more severe: the gate fails when any
  int baselined = 0;           // findings the baseline accepts
  std::array<int, 3> fresh{};  // new findings per Severity (indexed by its value)
};

// Fails on a violation at fail_on or above (error > warning > note) that baselined (empty: no
// baseline) does not mark.
GateVerdict EvaluateGate(const std::vector<Violation>& violations, Severity fail_on,
                         const std::vector<bool>& baselined = {});
// {"verdict": "pass"|"fail", "fail_on", "blocking", "baselined", "errors", "warnings", "notes"}.
nlohmann::json GateToJson(const GateVerdict& verdict);
// "fail: 1 error, 2 warnings, 0 notes (fail-on error; 3 baselined)".
std::string GateSummary(const GateVerdict& verdict);

}  // namespace forkscope::analyzer
