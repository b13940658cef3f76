// RenderText and RenderTextSummary (see report.h): what the command line prints, one line per layer, the
// most frequent findings and then each finding where it is. Pure functions over values; thread-safe.
#include <algorithm>
#include <cstdio>
#include <sstream>
#include <utility>
#include <vector>

#include "analyzer/render/report.h"
#include "analyzer/render/report_internal.h"

namespace forkscope::analyzer {

using report_internal::ComputeTotals;
using report_internal::ShortSha;
using report_internal::SummaryOf;
using report_internal::Totals;

namespace {

// "id ×3, id2 ×1" for the first `limit` (id, count) pairs, largest counts first.
std::string CountList(std::vector<std::pair<std::string, int>> counts, size_t limit) {
  std::stable_sort(counts.begin(), counts.end(), [](const auto& x, const auto& y) { return x.second > y.second; });
  std::string s;
  for (size_t i = 0; i < counts.size() && i < limit; ++i)
    s += (i ? ", " : "") + counts[i].first + " ×" + std::to_string(counts[i].second);
  if (counts.size() > limit) s += ", … (" + std::to_string(counts.size() - limit) + " more)";
  return s.empty() ? "none" : s;
}

std::string TableRow(const std::string& name, int files, int hunks, int additions, int deletions) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "  %-10s %6d %6d %7d %7d\n", name.c_str(), files, hunks, additions, deletions);
  return buf;
}

std::string OrQuestion(const std::string& s) { return s.empty() ? "?" : s; }

// "style evidence: compat 1 hunk(s) / 2 line(s), native ...; strongest: native csrc/ops.cc:3 (native-op-api, 12)"
std::string StyleEvidenceLine(const StyleEvidence& e) {
  std::ostringstream out;
  out << "style evidence: compat " << e.compat_hunks << " hunk(s) / " << e.compat_lines << " line(s), native "
      << e.native_hunks << " hunk(s) / " << e.native_lines << " line(s)";
  if (e.harness_only) out << " (tests, examples and benchmarks only)";
  for (size_t i = 0; i < e.strongest.size(); ++i) {
    const StyleSignal& s = e.strongest[i];
    out << (i == 0 ? "; strongest: " : ", ") << MigrationStyleName(s.style) << " " << s.path;
    if (s.line > 0) out << ":" << s.line;
    out << " (" << s.signal << ", " << s.weight << ")";
  }
  return out.str();
}

}  // namespace

std::string RenderTextSummary(const Analysis& a) {
  std::ostringstream out;
  out << "fork " << OrQuestion(a.fork.branch) << "@" << OrQuestion(ShortSha(a.fork.sha)) << " vs upstream "
      << OrQuestion(a.upstream.branch) << "@" << OrQuestion(ShortSha(a.upstream.sha)) << "\n"
      << "merge-base " << OrQuestion(ShortSha(a.merge_base)) << " (" << OrQuestion(BaseSourceName(a.base_source))
      << "), " << a.ahead << " ahead, " << a.behind << " behind, style " << MigrationStyleName(a.style)
      << (a.style == MigrationStyle::kNone ? " (no Paddle migration found)" : "") << ", "
      << (a.cached ? "cached" : "fresh") << "\n";
  if (a.base_source == BaseSource::kSearched && a.base_distance) {
    const BaseDistance& d = *a.base_distance;
    out << "base searched over " << d.commits_scanned << " upstream commits: keeps " << d.kept_lines << " of "
        << d.fork_lines << " fork lines";
    if (d.equivalent_commits > 0) out << " (" << d.equivalent_commits << " other commits alike)";
    if (!d.runner_up.empty()) out << ", runner-up " << ShortSha(d.runner_up) << " keeps " << d.margin_lines << " fewer";
    out << "\n";
    if (!d.confidence.empty())
      out << "base confidence " << d.confidence << (d.confidence_reason.empty() ? "" : ": " + d.confidence_reason)
          << "\n";
  }
  const StyleEvidence& evidence = a.style_evidence;
  if (evidence.compat_hunks + evidence.native_hunks > 0) out << StyleEvidenceLine(evidence) << "\n";
  char header[128];
  std::snprintf(header, sizeof header, "  %-10s %6s %6s %7s %7s\n", "layer", "files", "hunks", "+", "-");
  out << header;
  for (Layer layer : kAllLayers) {
    const LayerSummary& s = SummaryOf(a, layer);
    out << TableRow(LayerName(layer), s.files, s.hunks, s.additions, s.deletions);
  }
  const Totals t = ComputeTotals(a);
  out << TableRow("total", t.files, t.hunks, t.additions, t.deletions);
  std::vector<std::pair<std::string, int>> patterns, rules;
  for (const PatternCount& p : a.patterns) patterns.emplace_back(p.id, p.count);
  for (const Violation& v : a.violations) {
    auto it = std::find_if(rules.begin(), rules.end(), [&](const auto& r) { return r.first == v.rule; });
    if (it == rules.end())
      rules.emplace_back(v.rule, 1);
    else
      ++it->second;
  }
  const auto no_removal =
      std::count_if(a.compat_gaps.begin(), a.compat_gaps.end(), [](const CompatGap& g) { return g.removal.empty(); });
  out << "patterns: " << CountList(patterns, 5) << "\n"
      << "violations: " << CountList(rules, 10) << "\n"
      << "compat gaps: " << a.compat_gaps.size();
  if (no_removal > 0) out << " (" << no_removal << " without removal condition)";
  out << "\n";
  for (const std::string& n : a.notices) out << "note: " << n << "\n";
  return out.str();
}

namespace {

constexpr size_t kGroupFilesShown = 20;

std::string Where(const std::string& path, int line) { return line > 0 ? path + ":" + std::to_string(line) : path; }

std::string GapText(const CompatGap& gap) {
  std::string text = "compat gap: " + (gap.api.empty() ? std::string("a torch API") : gap.api);
  if (!gap.bridge.empty()) text += " bridged with " + gap.bridge;
  return text + (gap.removal.empty() ? "; no removal condition stated" : "; remove when " + gap.removal);
}

}  // namespace

std::string RenderFindingsText(const Analysis& a, const std::vector<bool>& baselined) {
  std::ostringstream out;
  size_t hidden = 0;
  for (size_t i = 0; i < a.violations.size(); ++i) {
    if (i < baselined.size() && baselined[i]) {
      ++hidden;
      continue;
    }
    const Violation& v = a.violations[i];
    out << Where(v.path, v.line) << "  " << v.rule << "  " << SeverityName(v.severity) << ": " << v.message << "\n";
    for (size_t f = 0; f < v.files.size() && f < kGroupFilesShown; ++f) out << "    " << v.files[f] << "\n";
    if (v.files.size() > kGroupFilesShown) out << "    … " << v.files.size() - kGroupFilesShown << " more\n";
  }
  for (const CompatGap& gap : a.compat_gaps)
    out << Where(gap.path, gap.line) << "  compat-gap  note: " << GapText(gap) << "\n";
  if (hidden > 0) out << hidden << " baselined finding(s) not shown\n";
  return out.str();
}

std::string RenderText(const Analysis& a) {
  const std::string findings = RenderFindingsText(a);
  return RenderTextSummary(a) + "findings:\n" + (findings.empty() ? "none\n" : findings);
}

}  // namespace forkscope::analyzer
