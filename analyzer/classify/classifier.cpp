// Layer classification of files and hunks: path rules first, then hunk rules over the hunk's
// changed lines, its enclosing definition (header and body) and the file's text. A whole added or
// deleted file is classified by what it holds: each top-level definition on its own, and the file
// hunk takes the layer of most of its lines.
#include "analyzer/classify/classifier.h"

#include <array>
#include <cctype>
#include <optional>
#include <vector>

#include "analyzer/classify/enclosing.h"
#include "analyzer/classify/include_reach.h"
#include "analyzer/classify/rules_data.h"
#include "base/text.h"

namespace forkscope::analyzer {
namespace {

using classify::Enclosing;
using classify::Language;
using classify::SourceLines;

// The file a hunk belongs to, as hunk rules see it; answers each rule's `file` regex once.
class FileView {
 public:
  FileView(const RulesData& data, const FileSource& source, const FileChange& file)
      : source_(source), file_(file), answers_(data.hunk_rules.size()) {}

  bool Matches(size_t rule, const RE2& re) {
    std::optional<bool>& answer = answers_[rule];
    if (!answer) answer = Search(re);
    return *answer;
  }

 private:
  bool Search(const RE2& re) {
    if (!source_.new_text.empty() || !source_.old_text.empty())
      return RE2::PartialMatch(source_.new_text, re) || RE2::PartialMatch(source_.old_text, re);
    if (!hunk_text_) {  // no text (raw diffs checked without blobs, oversized files): what the hunks show
      hunk_text_.emplace();
      for (const auto& hunk : file_.hunks)
        for (const auto& line : hunk.lines) *hunk_text_ += line.text + "\n";
    }
    return RE2::PartialMatch(*hunk_text_, re);
  }

  const FileSource& source_;
  const FileChange& file_;
  std::optional<std::string> hunk_text_;
  std::vector<std::optional<bool>> answers_;  // indexed like RulesData::hunk_rules
};

std::string_view TrimmedView(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Every changed line that is not blank matches (and there is one).
bool EveryChanged(const Hunk& hunk, const RE2& re) {
  bool any = false;
  for (const auto& line : hunk.lines) {
    if (line.origin == ' ' || TrimmedView(line.text).empty()) continue;
    if (!RE2::PartialMatch(line.text, re)) return false;
    any = true;
  }
  return any;
}

// One hunk under classification: its enclosing definition and, when a rule asks, that body.
struct HunkSite {
  const Hunk& hunk;
  const Enclosing& enclosing;
  Language lang;
  std::optional<std::vector<std::string_view>> body;

  bool BodyMatches(const RE2& re) {
    if (!body) body = classify::BodyOf(enclosing, lang);
    for (std::string_view line : *body)
      if (RE2::PartialMatch(line, re)) return true;
    return false;
  }
};

// Whether any line of the hunk (context lines too), its context or its enclosing body matches.
bool Anywhere(HunkSite& site, const RE2& re) {
  for (const auto& line : site.hunk.lines)
    if (RE2::PartialMatch(line.text, re)) return true;
  return RE2::PartialMatch(site.enclosing.text, re) || site.BodyMatches(re);
}

bool RuleHolds(const HunkRule& rule, size_t index, HunkSite& site, FileView& file) {
  if (rule.match && !AnyLine(site.hunk, LineSide::kChanged, *rule.match)) return false;
  if (rule.every && !EveryChanged(site.hunk, *rule.every)) return false;
  if (rule.context && !RE2::PartialMatch(site.enclosing.text, *rule.context)) return false;
  if (rule.body && !site.BodyMatches(*rule.body)) return false;
  if (rule.file && !file.Matches(index, *rule.file)) return false;
  return !rule.unless || !Anywhere(site, *rule.unless);
}

// Rule `cxx-host-reachable` (after the rules file's hunk rules, before the path layer): C/C++/CUDA code
// that no rule placed and that shows no device code — not in its changed or context lines, its
// enclosing definition or that body — in a file the binding files reach through #include by way of
// host files (classify/include_reach.h) is the extension's host glue, not a kernel. A header only kernel
// sources include, or a hunk with device evidence, keeps the path layer.
bool HostReachedGlue(HunkSite& site, const HostReachable& host_reachable) {
  // Reach before device evidence: the first question reads the fork's include graph (once per analysis),
  // and most files are not reached, while looking for device code through a hunk's enclosing definition
  // and body is dear on every kernel hunk (twice the instructions of a 30,000-file analysis the other way).
  return site.lang == Language::kCxx && host_reachable() && !Anywhere(site, classify::DeviceCodeRe());
}

Layer RulesLayer(const RulesData& data, std::string_view path, HunkSite& site, FileView& file, Layer path_layer,
                 const HostReachable& host_reachable) {
  for (size_t i = 0; i < data.hunk_rules.size(); ++i) {
    const HunkRule& rule = data.hunk_rules[i];
    if (AnyGlob(rule.paths, path) && RuleHolds(rule, i, site, file)) return rule.layer;
  }
  if (path_layer == Layer::kKernel && HostReachedGlue(site, host_reachable)) return Layer::kCppCompat;
  return path_layer;
}

// The hunk of an added or deleted file spans the whole file, not one edit site.
bool IsWholeFile(const Hunk& hunk) {
  return (hunk.old_start == 0 && hunk.old_lines == 0) || (hunk.new_start == 0 && hunk.new_lines == 0);
}

bool StartsCxxBlock(std::string_view line, std::string_view previous) {
  if (line.empty() || line[0] == ' ' || line[0] == '\t') return false;
  const unsigned char first = static_cast<unsigned char>(line[0]);
  if (!(std::isalpha(first) || first == '_' || first == '~' || first == '@')) return false;
  const std::string_view prev = TrimmedView(previous);
  if (prev.empty() || prev[0] == '#' || prev.substr(0, 2) == "//" || prev.back() == '/') return true;
  return prev.back() == ';' || prev.back() == '}' || prev.back() == '{';
}

bool StartsPythonBlock(std::string_view line, std::string_view previous) {
  if (line.empty() || line[0] == ' ' || line[0] == '\t' || line[0] == '#') return false;
  if (line[0] == ')' || line[0] == ']' || line[0] == '}') return false;
  const std::string_view prev = TrimmedView(previous);
  if (prev.empty()) return true;
  if (previous[0] == '@') return false;  // a decorator belongs to the def below it
  const char last = prev.back();
  return last != '(' && last != '[' && last != '{' && last != ',' && last != '\\';
}

// Where each top-level definition of a whole-file hunk starts: indices into hunk.lines.
std::vector<size_t> TopLevelBlocks(const Hunk& hunk, Language lang) {
  std::vector<size_t> starts = {0};
  std::string_view previous;  // the last non-blank line that is not a comment
  for (size_t i = 0; i < hunk.lines.size(); ++i) {
    const std::string_view text = hunk.lines[i].text;
    const std::string_view trimmed = TrimmedView(text);
    if (trimmed.empty()) continue;
    const bool starts_block =
        lang == Language::kCxx ? StartsCxxBlock(text, previous) : StartsPythonBlock(text, previous);
    if (i > 0 && starts_block && !previous.empty()) starts.push_back(i);
    previous = text;
  }
  return starts;
}

// A line that leads into a definition without saying what it is: blank, comment, preprocessor,
// `template <...>` (C++); blank or comment (Python).
bool IsLeadIn(std::string_view text, Language lang) {
  const std::string_view t = TrimmedView(text);
  if (t.empty() || t[0] == '#') return true;
  if (lang != Language::kCxx) return false;
  return t.substr(0, 2) == "//" || t.substr(0, 2) == "/*" || t[0] == '*' || t.substr(0, 8) == "template";
}

// The lines [begin, end) of a whole-file hunk as a hunk of their own, numbered as in the file. Its
// lead-in lines become context, so the definition's own header is where its context is looked up.
Hunk Slice(const Hunk& whole, size_t begin, size_t end, Language lang) {
  Hunk part;
  const bool added = whole.old_lines == 0 && whole.old_start == 0;
  const int first = static_cast<int>(begin) + 1;
  part.old_start = added ? 0 : first;
  part.new_start = added ? first : 0;
  part.lines.assign(whole.lines.begin() + static_cast<std::ptrdiff_t>(begin),
                    whole.lines.begin() + static_cast<std::ptrdiff_t>(end));
  (added ? part.new_lines : part.old_lines) = static_cast<int>(end - begin);
  size_t code = 0;
  while (code < part.lines.size() && IsLeadIn(part.lines[code].text, lang)) ++code;
  if (code < part.lines.size())
    for (size_t i = 0; i < code; ++i) part.lines[i].origin = ' ';
  return part;
}

struct FileContext {
  const RulesData& data;
  std::string_view path;
  Language lang;
  const SourceLines& lines;
  FileView& file;
  Layer path_layer;
  const HostReachable& host_reachable;
};

// A whole added or deleted file: the layer of most of its lines, each top-level definition
// classified as if it were a hunk of its own; ties go to the path layer.
Layer WholeFileLayer(FileContext& ctx, const Hunk& whole) {
  SourceLines own;  // the file's text from the hunk itself when the blob text is missing
  const bool added = whole.old_start == 0 && whole.old_lines == 0;
  const std::vector<std::string_view>& text = added ? ctx.lines.new_lines : ctx.lines.old_lines;
  if (text.size() != whole.lines.size()) {
    auto& side = added ? own.new_lines : own.old_lines;
    for (const auto& line : whole.lines) side.push_back(line.text);
  }
  const SourceLines& source = text.size() == whole.lines.size() ? ctx.lines : own;
  std::array<int, kAllLayers.size()> lines_per_layer{};
  const std::vector<size_t> starts = TopLevelBlocks(whole, ctx.lang);
  for (size_t b = 0; b < starts.size(); ++b) {
    const size_t end = b + 1 < starts.size() ? starts[b + 1] : whole.lines.size();
    const Hunk part = Slice(whole, starts[b], end, ctx.lang);
    const Enclosing enclosing = classify::FindEnclosing(source, part, ctx.lang);
    HunkSite site{part, enclosing, ctx.lang, std::nullopt};
    const Layer layer = RulesLayer(ctx.data, ctx.path, site, ctx.file, ctx.path_layer, ctx.host_reachable);
    lines_per_layer[static_cast<size_t>(layer)] += static_cast<int>(end - starts[b]);
  }
  Layer best = ctx.path_layer;
  for (Layer layer : kAllLayers)
    if (lines_per_layer[static_cast<size_t>(layer)] > lines_per_layer[static_cast<size_t>(best)]) best = layer;
  return best;
}

// The layer holding most changed lines; ties go to the path layer, then to kAllLayers order.
Layer MajorityLayer(const FileChange& file) {
  std::array<int, kAllLayers.size()> changed{};
  for (const auto& hunk : file.hunks) changed[static_cast<size_t>(hunk.layer)] += hunk.additions() + hunk.deletions();
  Layer best = file.path_layer;
  for (Layer layer : kAllLayers)
    if (changed[static_cast<size_t>(layer)] > changed[static_cast<size_t>(best)]) best = layer;
  return best;
}

std::vector<std::string> MatchPatterns(const RulesData& data, const FileChange& file, const Hunk& hunk) {
  std::vector<std::string> ids;
  for (const auto& pattern : data.patterns)
    if (InScope(pattern.scope, file, &hunk) && HoldsAll(pattern.all, pattern.any_of, hunk)) ids.push_back(pattern.id);
  return ids;
}

}  // namespace

Layer ClassifyPath(const Rules& rules, std::string_view path) {
  for (const auto& rule : rules.data().path_rules)
    if (rule.glob.Matches(path)) return rule.layer;
  return Layer::kOther;
}

void ClassifyFile(const Rules& rules, const FileSource& source, FileChange& file) {
  const RulesData& data = rules.data();
  file.path_layer = ClassifyPath(rules, file.path);
  const Language lang = classify::LanguageOf(file.path);
  SourceLines lines;
  if (lang != Language::kOther && !file.hunks.empty())
    lines = SourceLines{base::SplitLines(source.old_text), base::SplitLines(source.new_text)};
  FileView view(data, source, file);
  FileContext ctx{data, file.path, lang, lines, view, file.path_layer, source.host_reachable};
  for (auto& hunk : file.hunks) {
    const Enclosing enclosing = classify::FindEnclosing(lines, hunk, lang);
    hunk.context = enclosing.text;
    if (IsWholeFile(hunk) && lang != Language::kOther) {
      hunk.layer = WholeFileLayer(ctx, hunk);
      continue;
    }
    HunkSite site{hunk, enclosing, lang, std::nullopt};
    hunk.layer = RulesLayer(data, file.path, site, view, file.path_layer, source.host_reachable);
  }
  file.layer = MajorityLayer(file);
  // Patterns may be scoped by the file layer, so they come after every hunk has its layer.
  for (auto& hunk : file.hunks) hunk.patterns = MatchPatterns(data, file, hunk);
}

}  // namespace forkscope::analyzer
