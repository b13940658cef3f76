#include "analyzer/classify/gate.h"

#include <unordered_map>

namespace forkscope::analyzer {

using nlohmann::json;

json BaselineToJson(const std::vector<Violation>& violations) {
  json findings = json::array();
  for (const Violation& v : violations)
    findings.push_back(
        {{"fingerprint", ViolationFingerprint(v)}, {"rule", v.rule}, {"path", v.path}, {"message", v.message}});
  return {{"tool", "forkscope"}, {"version", 1}, {"findings", std::move(findings)}};
}

Result<Baseline> BaselineFromJson(std::string_view text, const std::string& origin) {
  const json doc = json::parse(text, nullptr, false);
  auto bad = [&](const std::string& what) { return InvalidArgument(origin + ": " + what); };
  if (doc.is_discarded() || !doc.is_object()) return bad("not a JSON object");
  if (doc.value("version", json()) != 1) return bad("unsupported baseline version (want 1)");
  auto findings = doc.find("findings");
  if (findings == doc.end() || !findings->is_array()) return bad("key 'findings' must be an array");
  Baseline baseline;
  for (size_t i = 0; i < findings->size(); ++i) {
    const json& f = (*findings)[i];
    auto fp = f.is_object() ? f.find("fingerprint") : f.end();
    if (!f.is_object() || fp == f.end() || !fp->is_string())
      return bad("findings[" + std::to_string(i) + "].fingerprint must be a string");
    baseline.fingerprints.push_back(fp->get<std::string>());
  }
  return baseline;
}

std::vector<bool> MatchBaseline(const Baseline& baseline, const std::vector<Violation>& violations) {
  std::unordered_map<std::string, int> left;
  for (const auto& fp : baseline.fingerprints) ++left[fp];
  std::vector<bool> accepted(violations.size(), false);
  for (size_t i = 0; i < violations.size(); ++i) {
    if (violations[i].rule == kTooLargeToCheckRule) continue;
    auto it = left.find(ViolationFingerprint(violations[i]));
    if (it == left.end() || it->second == 0) continue;
    --it->second;
    accepted[i] = true;
  }
  return accepted;
}

int AddUncheckedFileFindings(Analysis& analysis) {
  int count = 0;
  for (const Violation& v : analysis.violations) count += v.rule == kTooLargeToCheckRule ? 1 : 0;
  if (count > 0) return count;
  for (const FileChange& f : analysis.files) {
    if (!f.truncated) continue;
    Violation v;
    v.rule = kTooLargeToCheckRule;
    v.path = f.path;
    v.severity = Severity::kError;
    v.message = "file too large to check: " + std::to_string(f.additions + f.deletions) +
                " changed lines, more than the diff keeps, so no rule read them; split the change or check "
                "this file by hand (the gate never passes what it did not read)";
    analysis.violations.push_back(std::move(v));
    ++count;
  }
  return count;
}

GateVerdict EvaluateGate(const std::vector<Violation>& violations, Severity fail_on,
                         const std::vector<bool>& baselined) {
  GateVerdict verdict;
  verdict.fail_on = fail_on;
  for (size_t i = 0; i < violations.size(); ++i) {
    if (i < baselined.size() && baselined[i]) {
      ++verdict.baselined;
      continue;
    }
    const Severity severity = violations[i].severity;
    ++verdict.fresh[static_cast<size_t>(severity)];
    if (static_cast<int>(severity) <= static_cast<int>(fail_on)) ++verdict.blocking;
  }
  verdict.pass = verdict.blocking == 0;
  return verdict;
}

json GateToJson(const GateVerdict& v) {
  return {{"verdict", v.pass ? "pass" : "fail"},
          {"fail_on", SeverityName(v.fail_on)},
          {"blocking", v.blocking},
          {"baselined", v.baselined},
          {"errors", v.fresh[static_cast<size_t>(Severity::kError)]},
          {"warnings", v.fresh[static_cast<size_t>(Severity::kWarning)]},
          {"notes", v.fresh[static_cast<size_t>(Severity::kNote)]}};
}

std::string GateSummary(const GateVerdict& v) {
  auto count = [&](Severity s, const char* one, const char* many) {
    const int n = v.fresh[static_cast<size_t>(s)];
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  std::string out = std::string(v.pass ? "pass" : "fail") + ": " + count(Severity::kError, "error", "errors") + ", " +
                    count(Severity::kWarning, "warning", "warnings") + ", " + count(Severity::kNote, "note", "notes") +
                    " (fail-on " + SeverityName(v.fail_on);
  if (v.baselined > 0) out += "; " + std::to_string(v.baselined) + " baselined";
  return out + ")";
}

}  // namespace forkscope::analyzer
