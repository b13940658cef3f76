// The registry side of compat gaps: annotations folded into an analysis (ids and API keys are
// analyzer/model/compat_gap.cpp).
#include <algorithm>
#include <set>

#include "analyzer/classify/compat_gap.h"

namespace forkscope::analyzer {
namespace {

std::set<std::string> NoRemovalRules(const RulesData& rules) {
  std::set<std::string> ids;
  for (const auto& rule : rules.violations)
    if (rule.check == ViolationCheck::kCompatGapNoRemoval) ids.insert(rule.id);
  return ids;
}

bool HunkCovers(const FileChange& file, const Hunk& hunk, int line) {
  const bool old_side = file.status == FileStatus::kDeleted;
  const int start = old_side ? hunk.old_start : hunk.new_start;
  const int count = std::max(old_side ? hunk.old_lines : hunk.new_lines, 1);
  return line >= start && line < start + count;
}

// Each hunk keeps a no-removal rule id only while a violation of that rule remains inside it.
void ResyncHunkViolations(const std::set<std::string>& rule_ids, Analysis& analysis) {
  for (auto& file : analysis.files) {
    for (auto& hunk : file.hunks) {
      auto& ids = hunk.violations;
      ids.erase(std::remove_if(ids.begin(), ids.end(),
                               [&](const std::string& id) {
                                 if (!rule_ids.count(id)) return false;
                                 return std::none_of(
                                     analysis.violations.begin(), analysis.violations.end(), [&](const Violation& v) {
                                       return v.rule == id && v.path == file.path && HunkCovers(file, hunk, v.line);
                                     });
                               }),
                ids.end());
    }
  }
}

}  // namespace

int ApplyGapAnnotations(const Rules& rules, const std::string& fork, const std::vector<GapAnnotation>& annotations,
                        Analysis& analysis) {
  std::vector<std::pair<std::string, int>> resolved;  // path, line of gaps an annotation gives a removal condition
  for (const auto& gap : analysis.compat_gaps) {
    const std::string id = CompatGapId(fork, gap.path, CompatGapApiKey(gap));
    for (const auto& a : annotations)
      if (a.id == id && !a.removal.empty()) resolved.emplace_back(gap.path, gap.line);
  }
  if (resolved.empty()) return 0;
  const std::set<std::string> rule_ids = NoRemovalRules(rules.data());
  auto& v = analysis.violations;
  const size_t before = v.size();
  v.erase(std::remove_if(v.begin(), v.end(),
                         [&](const Violation& x) {
                           return rule_ids.count(x.rule) && std::find(resolved.begin(), resolved.end(),
                                                                      std::make_pair(x.path, x.line)) != resolved.end();
                         }),
          v.end());
  ResyncHunkViolations(rule_ids, analysis);
  return static_cast<int>(before - v.size());
}

}  // namespace forkscope::analyzer
