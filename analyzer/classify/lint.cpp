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
#include "analyzer/classify/finding_line.h"
#include "analyzer/classify/rules_data.h"
#include "analyzer/classify/style.h"
#include "analyzer/classify/tree_findings.h"

namespace forkscope::analyzer {
namespace {

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

// The op schema strings on one line, whitespace dropped.
std::vector<std::string> SchemasIn(const std::string& text, const RE2& schema) {
  std::vector<std::string> found;
  re2::StringPiece input(text), match;
  size_t pos = 0;
  while (pos < text.size() && schema.Match(input, pos, text.size(), RE2::UNANCHORED, &match, 1)) {
    found.push_back(WithoutSpace(std::string_view(match.data(), match.size())));
    pos = static_cast<size_t>(match.data() - text.data()) + std::max<size_t>(match.size(), 1);
  }
  return found;
}

std::vector<std::string> SchemasOn(const Hunk& hunk, char origin, const RE2& schema) {
  std::vector<std::string> found;
  for (const auto& line : hunk.lines) {
    if (line.origin != origin) continue;
    auto on_line = SchemasIn(line.text, schema);
    found.insert(found.end(), on_line.begin(), on_line.end());
  }
  return found;
}

bool Contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

struct SchemaEdit {
  std::string schema;              // the removed schema string, whitespace dropped
  const DiffLine* line = nullptr;  // the added line carrying the edited schema, else the removed line
};

// The first op schema string on a removed line that no added line carries unchanged.
std::optional<SchemaEdit> EditedSchema(const Hunk& hunk, const RE2& schema) {
  const std::vector<std::string> added = SchemasOn(hunk, '+', schema);
  const std::vector<std::string> removed = SchemasOn(hunk, '-', schema);
  auto edited = std::find_if(removed.begin(), removed.end(), [&](const std::string& r) { return !Contains(added, r); });
  if (edited == removed.end()) return std::nullopt;
  SchemaEdit edit{*edited, nullptr};
  for (const auto& line : hunk.lines) {
    if (line.origin == '-' && edit.line == nullptr && Contains(SchemasIn(line.text, schema), *edited))
      edit.line = &line;
    if (line.origin != '+') continue;
    for (const auto& s : SchemasIn(line.text, schema))
      if (!Contains(removed, s)) return SchemaEdit{*edited, &line};
  }
  return edit;
}

// What a hunk rule found: the detail for the message (possibly empty) and the matched line.
struct Hit {
  std::string detail;
  const DiffLine* line = nullptr;
  std::vector<std::pair<std::string, std::string>> params{};  // the detail's parts (Violation::params)
};

struct Firing {
  int count = 0;
  std::string first;  // "path:line"
};

class Linter {
 public:
  Linter(const RulesData& rules, Analysis& analysis)
      : rules_(rules), analysis_(analysis), firings_(rules.violations.size()) {}

  void Run() {
    const std::vector<FileFinding> file_findings = FindFileFindings(rules_, analysis_.files);
    auto next = file_findings.begin();
    for (size_t i = 0; i < analysis_.files.size(); ++i) {
      for (; next != file_findings.end() && next->first_file == i; ++next)
        Report(next->rule, next->path, nullptr, next->detail, nullptr, next->files, next->params);
      LintHunks(analysis_.files[i]);
    }
    AddNotices();
  }

 private:
  // A matched diff line with the file and hunk that number it.
  struct Located {
    const FileChange* file;
    const Hunk* hunk;
    const DiffLine* line;
  };

  void LintHunks(FileChange& file) {
    for (auto& hunk : file.hunks) {
      const DiffLine* gap_line = nullptr;
      std::optional<CompatGap> gap = FindCompatGap(rules_, file, hunk, &gap_line);
      for (size_t r = 0; r < rules_.violations.size(); ++r) {
        std::optional<Hit> hit = HunkViolation(rules_.violations[r], file, hunk, gap);
        if (!hit) continue;
        if (rules_.violations[r].check == ViolationCheck::kCompatGapNoRemoval) hit->line = gap_line;
        Located at{&file, &hunk, hit->line != nullptr ? hit->line : FirstChangedLine(hunk)};
        Report(r, file.path, &at, hit->detail, &hunk, {}, hit->params);
      }
      if (gap) analysis_.compat_gaps.push_back(std::move(*gap));
    }
  }

  // The detail and line of a violation when the rule fires on the hunk, else nullopt.
  static std::optional<Hit> HunkViolation(const ViolationRule& rule, const FileChange& file, const Hunk& hunk,
                                          const std::optional<CompatGap>& gap) {
    if (!InScope(rule.scope, file, &hunk) || !HoldsAll(rule.all, rule.any_of, hunk)) return std::nullopt;
    switch (rule.check) {
      case ViolationCheck::kHunk:
        return Hit{"", RuleLine(rule.all, rule.any_of, hunk)};
      case ViolationCheck::kFormattingOnly:
        if (!IsFormattingOnly(hunk)) return std::nullopt;
        return Hit{"", FirstChangedLine(hunk)};
      case ViolationCheck::kSchemaEdit: {
        std::optional<SchemaEdit> edit = EditedSchema(hunk, *rule.schema);
        if (!edit) return std::nullopt;
        return Hit{edit->schema, edit->line, {{"schema", edit->schema}}};
      }
      case ViolationCheck::kKernelEdit:
        if (IsFormattingOnly(hunk) || (rule.reason && AnyLine(hunk, LineSide::kAdded, *rule.reason)))
          return std::nullopt;
        return Hit{"", FirstChangedLine(hunk)};
      case ViolationCheck::kCompatGapNoRemoval:
        if (!gap || !gap->removal.empty()) return std::nullopt;
        return Hit{
            gap->api.empty() ? gap->bridge : gap->api, nullptr, {{"api", gap->api.empty() ? gap->bridge : gap->api}}};
      case ViolationCheck::kRenamedFile:
      case ViolationCheck::kDeletedFile:
        return std::nullopt;  // file-wide, see FindFileFindings
      case ViolationCheck::kEagerImportMissing:
      case ViolationCheck::kFunctionLevelTorchImport:
      case ViolationCheck::kLazyLoader:
        return std::nullopt;  // over the fork's package at its head, see analyzer/integration/eager_import.h
    }
    return std::nullopt;
  }

  void Report(size_t r, const std::string& path, const Located* at, const std::string& detail, Hunk* hunk,
              std::vector<std::string> files, std::vector<std::pair<std::string, std::string>> params) {
    const ViolationRule& rule = rules_.violations[r];
    Violation v{rule.id, path, 0, detail.empty() ? rule.message : rule.message + ": " + detail};
    v.severity = rule.severity;
    v.files = std::move(files);
    v.params = std::move(params);
    if (at != nullptr && at->line != nullptr) {
      v.line = ReportedLine(*at->file, *at->hunk, *at->line);
      v.snippet = at->line->text;
    }
    if (hunk != nullptr && !Contains(hunk->violations, rule.id)) hunk->violations.push_back(rule.id);
    Firing& firing = firings_[r];
    if (firing.count++ == 0) firing.first = v.line > 0 ? path + ":" + std::to_string(v.line) : path;
    analysis_.violations.push_back(std::move(v));
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
