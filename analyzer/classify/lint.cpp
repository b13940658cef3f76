// LintAnalysis: the whole-analysis pass after classification. Fills the layer summary, pattern
// counts, minimal-modification violations, compat gaps, the migration style and deprecation
// notices. Re-running it on the same analysis gives the same result (it resets what it fills).
#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/classify/classifier.h"
#include "analyzer/classify/compat_gap.h"
#include "analyzer/classify/rules_data.h"
#include "analyzer/classify/style.h"

namespace forkscope::analyzer {
namespace {

// The line a hunk is reported at: the new-side line of its first changed line (old side in a
// deleted file).
int HunkLine(const FileChange& file, const Hunk& hunk) {
  const bool old_side = file.status == FileStatus::kDeleted;
  int new_pos = hunk.new_start;
  int old_pos = hunk.old_start;
  for (const auto& line : hunk.lines) {
    if (line.origin == ' ') {
      ++new_pos;
      ++old_pos;
      continue;
    }
    if (old_side) return line.old_lineno > 0 ? line.old_lineno : old_pos;
    if (line.origin == '+' && line.new_lineno > 0) return line.new_lineno;
    return new_pos;
  }
  return old_side ? hunk.old_start : hunk.new_start;
}

std::string WithoutSpace(std::string_view text) {
  std::string out;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  return out;
}

// Removed and added lines are equal once every whitespace character is dropped.
bool IsFormattingOnly(const Hunk& hunk) {
  std::string removed, added;
  bool changed = false;
  for (const auto& line : hunk.lines) {
    if (line.origin == '+') added += WithoutSpace(line.text);
    if (line.origin == '-') removed += WithoutSpace(line.text);
    changed = changed || line.origin != ' ';
  }
  return changed && removed == added;
}

std::vector<std::string> SchemasOn(const Hunk& hunk, char origin, const RE2& schema) {
  std::vector<std::string> found;
  for (const auto& line : hunk.lines) {
    if (line.origin != origin) continue;
    re2::StringPiece input(line.text), match;
    size_t pos = 0;
    while (pos < line.text.size() && schema.Match(input, pos, line.text.size(), RE2::UNANCHORED, &match, 1)) {
      found.push_back(WithoutSpace(std::string_view(match.data(), match.size())));
      pos = static_cast<size_t>(match.data() - line.text.data()) + std::max<size_t>(match.size(), 1);
    }
  }
  return found;
}

// The first op schema string on a removed line that no added line carries unchanged.
std::optional<std::string> EditedSchema(const Hunk& hunk, const RE2& schema) {
  const std::vector<std::string> added = SchemasOn(hunk, '+', schema);
  for (const auto& removed : SchemasOn(hunk, '-', schema))
    if (std::find(added.begin(), added.end(), removed) == added.end()) return removed;
  return std::nullopt;
}

struct Firing {
  int count = 0;
  std::string first;  // "path:line"
};

class Linter {
 public:
  Linter(const RulesData& rules, Analysis& analysis)
      : rules_(rules), analysis_(analysis), firings_(rules.violations.size()) {}

  void Run() {
    for (auto& file : analysis_.files) LintFile(file);
    AddNotices();
  }

 private:
  void LintFile(FileChange& file) {
    for (size_t r = 0; r < rules_.violations.size(); ++r) FileViolation(r, file);
    for (auto& hunk : file.hunks) {
      const int line = HunkLine(file, hunk);
      std::optional<CompatGap> gap = FindCompatGap(rules_, file, hunk, line);
      for (size_t r = 0; r < rules_.violations.size(); ++r) {
        if (auto detail = HunkViolation(rules_.violations[r], file, hunk, gap))
          Report(r, file.path, line, *detail, &hunk);
      }
      if (gap) analysis_.compat_gaps.push_back(std::move(*gap));
    }
  }

  void FileViolation(size_t r, const FileChange& file) {
    const ViolationRule& rule = rules_.violations[r];
    if (!InScope(rule.scope, file, nullptr)) return;
    if (rule.check == ViolationCheck::kDeletedFile && file.status == FileStatus::kDeleted)
      Report(r, file.path, 0, "", nullptr);
    if (rule.check != ViolationCheck::kRenamedFile) return;
    const std::string& from = !file.moved_from.empty() ? file.moved_from : file.old_path;
    if (file.status == FileStatus::kRenamed || !file.moved_from.empty())
      Report(r, file.path, 0, from + " -> " + file.path, nullptr);
  }

  // The detail of a violation when the rule fires on the hunk (possibly empty), else nullopt.
  static std::optional<std::string> HunkViolation(const ViolationRule& rule, const FileChange& file, const Hunk& hunk,
                                                  const std::optional<CompatGap>& gap) {
    if (!InScope(rule.scope, file, &hunk) || !HoldsAll(rule.all, rule.any_of, hunk)) return std::nullopt;
    switch (rule.check) {
      case ViolationCheck::kHunk:
        return std::string();
      case ViolationCheck::kFormattingOnly:
        return IsFormattingOnly(hunk) ? std::optional<std::string>("") : std::nullopt;
      case ViolationCheck::kSchemaEdit:
        return EditedSchema(hunk, *rule.schema);
      case ViolationCheck::kKernelEdit:
        if (IsFormattingOnly(hunk) || (rule.reason && AnyLine(hunk, LineSide::kAdded, *rule.reason)))
          return std::nullopt;
        return std::string();
      case ViolationCheck::kCompatGapNoRemoval:
        if (!gap || !gap->removal.empty()) return std::nullopt;
        return gap->api.empty() ? gap->bridge : gap->api;
      case ViolationCheck::kRenamedFile:
      case ViolationCheck::kDeletedFile:
        return std::nullopt;  // file-wide, see FileViolation
    }
    return std::nullopt;
  }

  void Report(size_t r, const std::string& path, int line, const std::string& detail, Hunk* hunk) {
    const ViolationRule& rule = rules_.violations[r];
    std::string message = detail.empty() ? rule.message : rule.message + ": " + detail;
    analysis_.violations.push_back(Violation{rule.id, path, line, std::move(message)});
    if (hunk != nullptr &&
        std::find(hunk->violations.begin(), hunk->violations.end(), rule.id) == hunk->violations.end())
      hunk->violations.push_back(rule.id);
    Firing& firing = firings_[r];
    if (firing.count++ == 0) firing.first = path + ":" + std::to_string(line);
  }

  void AddNotices() {
    auto& notices = analysis_.notices;
    for (size_t r = 0; r < rules_.violations.size(); ++r) {
      const std::string& notice = rules_.violations[r].notice;
      if (notice.empty()) continue;
      // Drop this rule's notice from an earlier run so that linting twice adds it once.
      notices.erase(
          std::remove_if(notices.begin(), notices.end(), [&](const std::string& n) { return n.rfind(notice, 0) == 0; }),
          notices.end());
      const Firing& firing = firings_[r];
      if (firing.count == 0) continue;
      notices.push_back(notice + " (" + std::to_string(firing.count) + " place(s), first at " + firing.first + ")");
    }
  }

  const RulesData& rules_;
  Analysis& analysis_;
  std::vector<Firing> firings_;  // indexed like rules_.violations
};

void ResetLint(Analysis& analysis) {
  analysis.layers = {};
  analysis.patterns.clear();
  analysis.violations.clear();
  analysis.compat_gaps.clear();
  for (auto& file : analysis.files)
    for (auto& hunk : file.hunks) hunk.violations.clear();
}

// files: counted under FileChange::layer. hunks, additions, deletions: under each Hunk::layer;
// changed lines a file reports beyond its hunks (binary files, truncated diffs, pure renames)
// go to the file layer, so the per-layer additions and deletions add up to the whole diff.
void SummarizeLayers(Analysis& analysis) {
  for (const auto& file : analysis.files) {
    analysis.layers[static_cast<size_t>(file.layer)].files += 1;
    int additions = 0, deletions = 0;
    for (const auto& hunk : file.hunks) {
      LayerSummary& summary = analysis.layers[static_cast<size_t>(hunk.layer)];
      summary.hunks += 1;
      summary.additions += hunk.additions();
      summary.deletions += hunk.deletions();
      additions += hunk.additions();
      deletions += hunk.deletions();
    }
    LayerSummary& rest = analysis.layers[static_cast<size_t>(file.layer)];
    rest.additions += std::max(0, file.additions - additions);
    rest.deletions += std::max(0, file.deletions - deletions);
  }
}

// In rules order; only patterns seen in at least one hunk. count is the number of hunks.
void CountPatterns(const RulesData& rules, Analysis& analysis) {
  for (const auto& pattern : rules.patterns) {
    int count = 0;
    for (const auto& file : analysis.files)
      for (const auto& hunk : file.hunks)
        count += std::count(hunk.patterns.begin(), hunk.patterns.end(), pattern.id) > 0;
    if (count > 0) analysis.patterns.push_back(PatternCount{pattern.id, pattern.layer, pattern.description, count});
  }
}

}  // namespace

void LintAnalysis(const Rules& rules, Analysis& analysis) {
  const RulesData& data = rules.data();
  ResetLint(analysis);
  analysis.rules_version = rules.version();
  Linter(data, analysis).Run();
  SummarizeLayers(analysis);
  CountPatterns(data, analysis);
  classify::DetectStyle(data, analysis);
}

}  // namespace forkscope::analyzer
