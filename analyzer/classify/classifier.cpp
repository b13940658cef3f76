// Layer classification of files and hunks by role: path rules first, then hunk rules over the hunk's
// changed lines, its enclosing definition (header and body) and the file's text. A whole added or
// deleted file is classified by what it holds (a whole-file rule, else each top-level definition on its
// own, the file hunk taking the layer of most of its lines); a C/C++ hunk spanning definitions by its
// parts; a header's declarations by their definitions (Implementation, DefinitionCache); file-scope
// directives by the file's role (FileRole).
#include "analyzer/classify/classifier.h"

#include <array>
#include <cctype>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/classify/code_roles.h"
#include "analyzer/classify/enclosing.h"
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
  for (const auto& body : rule.body)
    if (!site.BodyMatches(*body)) return false;
  if (rule.file && !file.Matches(index, *rule.file)) return false;
  return !rule.unless || !Anywhere(site, *rule.unless);
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

// Where each top-level definition of a hunk starts: indices into hunk.lines.
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

struct FileContext;

// A source that may define what a header declares (classify/code_roles.h), read from the tree on first
// use: its top-level definitions, each classified by the same rules as a hunk of its own.
class Implementation {
 public:
  struct Definition {
    size_t begin = 0, end = 0;
    Layer layer = Layer::kOther;
  };
  // Layer of the definitions of `names` here (most lines), or nullopt when none is defined here.
  std::optional<Layer> LayerOf(const std::vector<classify::Declared>& names) const;
  static std::unique_ptr<Implementation> Load(const RulesData& data, std::string path, std::string text);

 private:
  std::string path_;
  std::string text_;
  std::vector<std::string_view> lines_;
  std::vector<Definition> definitions_;
};

// At most this many sources are read to find what one header declares.
constexpr size_t kMaxImplementationsRead = 16;

struct FileContext {
  const RulesData& data;
  std::string_view path;
  Language lang;
  const SourceLines& lines;
  FileView& file;
  Layer path_layer;
  const TreeText* tree = nullptr;                     // the tree beside the file, for a header's implementations
  const std::vector<std::string>* related = nullptr;  // the analysis's other changed sources
  DefinitionCache* definitions = nullptr;             // the sources read for header lookups
  bool from_base = false;                             // tree is the base's (a deleted file), not the fork's
  bool file_scope_role = true;  // a file-scope hunk no rule places may take the file's role (FileRole)
  std::optional<std::optional<Layer>> file_role = std::nullopt;  // computed on first need

  // The layer of the definitions of `names`: in the source beside the header (same folder and stem),
  // else in the first of the analysis's other changed sources that defines one of them.
  std::optional<Layer> DefinitionsLayer(const std::vector<classify::Declared>& names);
};

// One source read for header lookups: its text ("" when the tree has none) and, once some header's
// names were found in it, its definitions classified.
struct CachedSource {
  std::string text;
  std::unique_ptr<Implementation> implementation;
};

}  // namespace

struct DefinitionCache::Entries {
  std::map<std::pair<bool, std::string>, CachedSource> sources;  // (from the base's tree, path)
};

DefinitionCache::DefinitionCache() : entries_(std::make_unique<Entries>()) {}
DefinitionCache::~DefinitionCache() = default;

namespace {

std::optional<Layer> FileContext::DefinitionsLayer(const std::vector<classify::Declared>& names) {
  if (!tree || !*tree || !definitions) return std::nullopt;
  std::vector<std::string> candidates = classify::ImplementationPaths(path);
  if (related)
    for (const auto& other : *related)
      if (other != path && classify::LanguageOf(other) == Language::kCxx && !classify::IsCxxHeader(other))
        candidates.push_back(other);
  size_t read = 0;
  for (const auto& candidate : candidates) {
    auto& sources = definitions->entries().sources;
    auto it = sources.find({from_base, candidate});
    if (it == sources.end()) {
      if (read == kMaxImplementationsRead) break;
      ++read;
      it = sources.emplace(std::make_pair(from_base, candidate), CachedSource{(*tree)(candidate), nullptr}).first;
    }
    CachedSource& source = it->second;
    if (source.text.empty() || !classify::MentionsAny(source.text, names)) continue;
    if (!source.implementation) source.implementation = Implementation::Load(data, candidate, source.text);
    if (auto layer = source.implementation->LayerOf(names)) return layer;
  }
  return std::nullopt;
}

// A header's hunk at namespace or class scope that declares functions takes the layer of their
// definitions in the implementation beside it: a CPU implementation's declarations are compute
// (kernel), an op entry function's are the framework boundary (cpp_compat).
std::optional<Layer> DeclarationLayer(FileContext& ctx, HunkSite& site) {
  if (ctx.lang != Language::kCxx || !classify::IsCxxHeader(ctx.path)) return std::nullopt;
  static const RE2 kDeclarationScope(
      R"(^\s*(?:template\s*<[^{]*>\s*)?(?:(?:inline\s+)?namespace|class|struct|union|extern)\b[^(]*$)");
  // At file scope, in a namespace or class, or on a prototype found as the nearest header: not in a body.
  const std::string_view context = TrimmedView(site.enclosing.text);
  if (!context.empty() && context.back() != ';' && !RE2::PartialMatch(site.enclosing.text, kDeclarationScope))
    return std::nullopt;
  std::vector<classify::Declared> names = classify::DeclaredFunctions(site.hunk, true);
  for (auto& name : classify::DeclaredFunctions(site.hunk, false)) names.push_back(std::move(name));
  if (names.empty()) return std::nullopt;
  return ctx.DefinitionsLayer(names);
}

// Every changed line that is not blank is a preprocessor directive or a comment (and there is one).
bool OnlyDirectives(const Hunk& hunk) {
  bool any = false;
  for (const auto& line : hunk.lines) {
    if (line.origin == ' ') continue;
    const std::string_view t = TrimmedView(line.text);
    if (t.empty()) continue;
    if (t[0] != '#' && t.substr(0, 2) != "//" && t.substr(0, 2) != "/*" && t[0] != '*') return false;
    any = true;
  }
  return any;
}

std::optional<Layer> FileRole(FileContext& ctx);

// First match wins. A header's declarations (DeclarationLayer) are placed after the rules file's
// leading build rules (export macros and version shims stay build) and before its content rules.
Layer RulesLayer(FileContext& ctx, HunkSite& site) {
  const RulesData& data = ctx.data;
  bool declarations_asked = false;
  for (size_t i = 0; i < data.hunk_rules.size(); ++i) {
    const HunkRule& rule = data.hunk_rules[i];
    if (!declarations_asked && rule.layer != Layer::kBuild) {
      declarations_asked = true;
      if (auto declared = DeclarationLayer(ctx, site)) return *declared;
    }
    if (AnyGlob(rule.paths, ctx.path) && RuleHolds(rule, i, site, ctx.file)) return rule.layer;
  }
  if (!declarations_asked)
    if (auto declared = DeclarationLayer(ctx, site)) return *declared;
  if (ctx.file_scope_role && ctx.lang == Language::kCxx && site.enclosing.text.empty() && OnlyDirectives(site.hunk))
    if (auto role = FileRole(ctx)) return *role;
  return ctx.path_layer;
}

// The lines of the side a whole-file hunk shows, as views of the file text when it was loaded.
const std::vector<std::string_view>& WholeFileText(const FileContext& ctx, const Hunk& whole, SourceLines& own) {
  const bool added = whole.old_start == 0 && whole.old_lines == 0;
  const std::vector<std::string_view>& text = added ? ctx.lines.new_lines : ctx.lines.old_lines;
  if (text.size() == whole.lines.size()) return text;
  auto& side = added ? own.new_lines : own.old_lines;
  for (const auto& line : whole.lines) side.push_back(line.text);
  return side;
}

std::string Joined(const std::vector<std::string_view>& lines) {
  std::string out;
  for (std::string_view line : lines) out.append(line).push_back('\n');
  return out;
}

// The first whole-file rule whose `file` matches the side's text and whose `unless` does not.
std::optional<Layer> WholeFileRuleLayer(const FileContext& ctx, const std::vector<std::string_view>& text) {
  std::optional<std::string> joined;
  for (const HunkRule& rule : ctx.data.whole_file_rules) {
    if (!AnyGlob(rule.paths, ctx.path)) continue;
    if (!joined) joined = Joined(text);
    if (RE2::PartialMatch(*joined, *rule.file) && (!rule.unless || !RE2::PartialMatch(*joined, *rule.unless)))
      return rule.layer;
  }
  return std::nullopt;
}

// Per top-level definition of a whole-file hunk (given as `source`, whose side holds its lines): the
// definition's start and end, its lines as a hunk, and its layer.
template <typename F>
void ForEachDefinition(FileContext& ctx, const Hunk& whole, const SourceLines& source, F&& visit) {
  const std::vector<size_t> starts = TopLevelBlocks(whole, ctx.lang);
  for (size_t b = 0; b < starts.size(); ++b) {
    const size_t end = b + 1 < starts.size() ? starts[b + 1] : whole.lines.size();
    const Hunk part = Slice(whole, starts[b], end, ctx.lang);
    const Enclosing enclosing = classify::FindEnclosing(source, part, ctx.lang);
    HunkSite site{part, enclosing, ctx.lang, std::nullopt};
    visit(starts[b], end, part, RulesLayer(ctx, site));
  }
}

// A whole added or deleted file: the layer of most of its lines, each top-level definition
// classified as if it were a hunk of its own; ties go to the path layer.
Layer WholeFileLayer(FileContext& ctx, const Hunk& whole) {
  SourceLines own;  // the file's text from the hunk itself when the blob text is missing
  const std::vector<std::string_view>& text = WholeFileText(ctx, whole, own);
  if (auto layer = WholeFileRuleLayer(ctx, text)) return *layer;
  const SourceLines& source = (&text == &own.new_lines || &text == &own.old_lines) ? own : ctx.lines;
  // C/C++ includes and macros serve the definitions after them: they count only in a file of nothing else.
  std::array<int, kAllLayers.size()> lines_per_layer{}, directive_lines{};
  ForEachDefinition(ctx, whole, source, [&](size_t begin, size_t end, const Hunk& part, Layer layer) {
    auto& counts = ctx.lang == Language::kCxx && OnlyDirectives(part) ? directive_lines : lines_per_layer;
    counts[static_cast<size_t>(layer)] += static_cast<int>(end - begin);
  });
  if (lines_per_layer == std::array<int, kAllLayers.size()>{}) lines_per_layer = directive_lines;
  Layer best = ctx.path_layer;
  for (Layer layer : kAllLayers)
    if (lines_per_layer[static_cast<size_t>(layer)] > lines_per_layer[static_cast<size_t>(best)]) best = layer;
  return best;
}

// A text as one hunk that adds it whole, numbered as in the file.
Hunk AddedWhole(const std::vector<std::string_view>& lines) {
  Hunk whole;
  whole.new_start = 1;
  whole.new_lines = static_cast<int>(lines.size());
  for (std::string_view line : lines) whole.lines.push_back(DiffLine{'+', std::string(line), -1, -1});
  return whole;
}

std::unique_ptr<Implementation> Implementation::Load(const RulesData& data, std::string path, std::string text) {
  auto impl = std::make_unique<Implementation>();
  impl->path_ = std::move(path);
  impl->text_ = std::move(text);  // a copy: lines_ view this one
  impl->lines_ = base::SplitLines(impl->text_);
  const Hunk whole = AddedWhole(impl->lines_);
  const SourceLines source{{}, impl->lines_};
  FileChange none;
  const FileSource file_source{"", impl->text_, {}};
  FileView view(data, file_source, none);
  Layer path_layer = Layer::kOther;
  for (const auto& rule : data.path_rules)
    if (rule.glob.Matches(impl->path_)) {
      path_layer = rule.layer;
      break;
    }
  FileContext ctx{data, impl->path_, Language::kCxx, source, view, path_layer};
  ForEachDefinition(ctx, whole, source, [&](size_t begin, size_t end, const Hunk&, Layer layer) {
    impl->definitions_.push_back(Definition{begin, end, layer});
  });
  return impl;
}

std::optional<Layer> Implementation::LayerOf(const std::vector<classify::Declared>& names) const {
  std::array<int, kAllLayers.size()> lines_per_layer{};
  bool any = false;
  for (const auto& d : definitions_) {
    if (!classify::DefinesAny(lines_, d.begin, d.end, names)) continue;
    lines_per_layer[static_cast<size_t>(d.layer)] += static_cast<int>(d.end - d.begin);
    any = true;
  }
  if (!any) return std::nullopt;
  Layer best = kAllLayers[0];
  for (Layer layer : kAllLayers)
    if (lines_per_layer[static_cast<size_t>(layer)] > lines_per_layer[static_cast<size_t>(best)]) best = layer;
  return best;
}

// What a file-scope hunk of directives (includes, macros) serves: the layer of most lines of the
// file's top-level definitions on the side its text was loaded for (new, else old), directives-only
// parts left out; nullopt without text or definitions.
std::optional<Layer> FileRole(FileContext& ctx) {
  if (ctx.file_role) return *ctx.file_role;
  ctx.file_role.emplace();
  const std::vector<std::string_view>& side = ctx.lines.new_lines.empty() ? ctx.lines.old_lines : ctx.lines.new_lines;
  if (side.empty()) return std::nullopt;
  const Hunk whole = AddedWhole(side);
  const SourceLines source{{}, side};
  FileContext sub{ctx.data,       ctx.path, ctx.lang,    source,          ctx.file,
                  ctx.path_layer, ctx.tree, ctx.related, ctx.definitions, ctx.from_base};
  sub.file_scope_role = false;
  std::array<int, kAllLayers.size()> lines_per_layer{};
  bool any = false;
  const std::vector<size_t> starts = TopLevelBlocks(whole, ctx.lang);
  for (size_t b = 0; b < starts.size(); ++b) {
    const size_t end = b + 1 < starts.size() ? starts[b + 1] : whole.lines.size();
    const Hunk part = Slice(whole, starts[b], end, ctx.lang);
    if (OnlyDirectives(part) || part.additions() == 0) continue;
    const Enclosing enclosing = classify::FindEnclosing(source, part, ctx.lang);
    HunkSite site{part, enclosing, ctx.lang, std::nullopt};
    lines_per_layer[static_cast<size_t>(RulesLayer(sub, site))] += static_cast<int>(end - starts[b]);
    any = true;
  }
  if (!any) return std::nullopt;
  Layer best = ctx.path_layer;
  for (Layer layer : kAllLayers)
    if (lines_per_layer[static_cast<size_t>(layer)] > lines_per_layer[static_cast<size_t>(best)]) best = layer;
  ctx.file_role = best;
  return best;
}

// Changed lines that are not blank.
int ChangedCodeLines(const Hunk& hunk) {
  int n = 0;
  for (const auto& line : hunk.lines)
    if (line.origin != ' ' && !TrimmedView(line.text).empty()) ++n;
  return n;
}

// Lines [begin, end) of a hunk of a modified file as a hunk of their own, numbered as in the file.
Hunk SubHunk(const Hunk& hunk, size_t begin, size_t end) {
  Hunk part;
  part.old_start = hunk.old_start;
  part.new_start = hunk.new_start;
  for (size_t i = 0; i < begin; ++i) {
    if (hunk.lines[i].origin != '+') ++part.old_start;
    if (hunk.lines[i].origin != '-') ++part.new_start;
  }
  part.lines.assign(hunk.lines.begin() + static_cast<std::ptrdiff_t>(begin),
                    hunk.lines.begin() + static_cast<std::ptrdiff_t>(end));
  for (const auto& line : part.lines) {
    if (line.origin != '+') ++part.old_lines;
    if (line.origin != '-') ++part.new_lines;
  }
  return part;
}

// One side of a modified hunk: its context lines and that side's changed lines ('+' or '-'), numbered
// as in that side's text.
Hunk OneSide(const Hunk& hunk, char side) {
  Hunk out;
  out.old_start = hunk.old_start;
  out.new_start = hunk.new_start;
  for (const auto& line : hunk.lines) {
    if (line.origin != ' ' && line.origin != side) continue;
    out.lines.push_back(line);
    if (line.origin != '+') ++out.old_lines;
    if (line.origin != '-') ++out.new_lines;
  }
  return out;
}

// A C/C++ hunk of a modified file that spans top-level definitions (the end of one and the start of
// the next, on either side) takes the layer of most of its changed lines that are not blank: each
// side is cut where a definition starts, and each part is classified on its own; ties go to the layer
// of the hunk as a whole.
Layer ModifiedHunkLayer(FileContext& ctx, const Hunk& hunk, const Enclosing& enclosing) {
  HunkSite whole{hunk, enclosing, ctx.lang, std::nullopt};
  if (ctx.lang != Language::kCxx) return RulesLayer(ctx, whole);
  struct Side {
    Hunk lines;
    std::vector<size_t> starts;
  };
  std::vector<Side> sides;
  bool spans = false;
  for (const char origin : {'+', '-'}) {
    Hunk side = OneSide(hunk, origin);
    if (ChangedCodeLines(side) == 0) continue;
    std::vector<size_t> starts = TopLevelBlocks(side, ctx.lang);
    spans = spans || starts.size() > 1;
    sides.push_back(Side{std::move(side), std::move(starts)});
  }
  if (!spans) return RulesLayer(ctx, whole);
  std::array<int, kAllLayers.size()> changed{};
  for (const Side& side : sides) {
    for (size_t b = 0; b < side.starts.size(); ++b) {
      const size_t end = b + 1 < side.starts.size() ? side.starts[b + 1] : side.lines.lines.size();
      const Hunk part = SubHunk(side.lines, side.starts[b], end);
      const int count = ChangedCodeLines(part);
      if (count == 0) continue;
      const Enclosing part_enclosing = classify::FindEnclosing(ctx.lines, part, ctx.lang);
      HunkSite site{part, part_enclosing, ctx.lang, std::nullopt};
      changed[static_cast<size_t>(RulesLayer(ctx, site))] += count;
    }
  }
  Layer best = RulesLayer(ctx, whole);
  for (Layer layer : kAllLayers)
    if (changed[static_cast<size_t>(layer)] > changed[static_cast<size_t>(best)]) best = layer;
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
  DefinitionCache local;  // when the caller shares none
  FileContext ctx{data,
                  file.path,
                  lang,
                  lines,
                  view,
                  file.path_layer,
                  &source.tree_text,
                  source.related,
                  source.definitions ? source.definitions : &local,
                  file.status == FileStatus::kDeleted};
  for (auto& hunk : file.hunks) {
    const Enclosing enclosing = classify::FindEnclosing(lines, hunk, lang);
    hunk.context = enclosing.text;
    if (IsWholeFile(hunk) && lang != Language::kOther) {
      hunk.layer = WholeFileLayer(ctx, hunk);
      continue;
    }
    hunk.layer = ModifiedHunkLayer(ctx, hunk, enclosing);
  }
  file.layer = MajorityLayer(file);
  // Patterns may be scoped by the file layer, so they come after every hunk has its layer.
  for (auto& hunk : file.hunks) hunk.patterns = MatchPatterns(data, file, hunk);
}

}  // namespace forkscope::analyzer
