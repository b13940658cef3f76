// The migration style by weight of evidence (style.h; the rules' "style" section says what counts).
// Each hunk outside the `other` layer may speak for compat (the torch proxy turned on, a compat-gap
// bridge, torch-style C++ kept while it reaches Paddle C++) or native (Paddle's custom-op API, hand
// rewrites in files that drop their torch import, a package moved to a Paddle name); its weight is
// the number of its lines that say so. The library's own code decides; tests, examples and
// benchmarks only when nothing else speaks. Both styles with substantial weight make "mixed".
#include "analyzer/classify/style.h"

#include <algorithm>
#include <string>
#include <vector>

#include "analyzer/classify/enclosing.h"

namespace forkscope::analyzer::classify {
namespace {

constexpr size_t kStrongestPerStyle = 3;  // signals of each style kept in StyleEvidence::strongest

// What one hunk says: per line, whether it speaks for compat or native, and the signal's name.
struct HunkVerdict {
  explicit HunkVerdict(size_t lines) : compat(lines, false), native(lines, false) {}
  std::vector<bool> compat;
  std::vector<bool> native;
  std::string compat_signal;
  std::string native_signal;
  bool proxy = false;       // the torch proxy is turned on in this hunk
  bool native_api = false;  // Paddle's custom-op API is written in this hunk
};

bool Matches(const LazyRegex& re, const std::string& text) { return re && RE2::PartialMatch(text, *re); }

// Marks the lines a regex finds on the given side ('+' or '-'); returns whether it found one.
bool MarkLines(const Hunk& hunk, char origin, const LazyRegex& re, std::vector<bool>& marks) {
  bool found = false;
  for (size_t i = 0; i < hunk.lines.size(); ++i) {
    if (hunk.lines[i].origin != origin || !Matches(re, hunk.lines[i].text)) continue;
    marks[i] = true;
    found = true;
  }
  return found;
}

// The lines a pattern's conditions point at (every line its regexes find on their side).
void MarkPattern(const PatternRule& pattern, const Hunk& hunk, std::vector<bool>& marks) {
  auto mark = [&](const LineCondition& c) {
    MarkLines(hunk, '+', c.added, marks);
    MarkLines(hunk, '-', c.removed, marks);
    MarkLines(hunk, '+', c.changed, marks);
    MarkLines(hunk, '-', c.changed, marks);
  };
  mark(pattern.all);
  for (const auto& c : pattern.any_of) mark(c);
}

void Name(std::string& signal, const std::string& name) {
  if (signal.empty()) signal = name;
}

// A Python file rewritten off torch: it drops its torch import (a hunk removes one and no hunk adds
// or keeps one in sight), or it was moved here from an upstream file and imports Paddle, not torch.
bool RewrittenOffTorch(const StyleRules& style, const FileChange& file) {
  if (!style.torch_import) return true;
  bool removes = false, adds = false, adds_paddle = false;
  for (const auto& hunk : file.hunks)
    for (const auto& line : hunk.lines) {
      const bool torch = Matches(style.torch_import, line.text);
      removes = removes || (line.origin == '-' && torch);
      adds = adds || (line.origin != '-' && torch);
      adds_paddle = adds_paddle || (line.origin == '+' && Matches(style.paddle_added, line.text));
    }
  if (adds) return false;
  return removes || (!file.moved_from.empty() && adds_paddle);
}

// torch-style C++ that stays while the hunk reaches Paddle C++: the compat way of carrying C++.
void JudgeCxx(const StyleRules& style, const Hunk& hunk, HunkVerdict& v) {
  if (MarkLines(hunk, '+', style.native_cxx, v.native)) {
    v.native_api = true;
    Name(v.native_signal, "native-op-api");
  }
  bool torch_kept = Matches(style.torch_cxx, hunk.context);
  for (const auto& line : hunk.lines)
    torch_kept = torch_kept || (line.origin != '-' && Matches(style.torch_cxx, line.text));
  if (!torch_kept) return;
  std::vector<bool> paddle(hunk.lines.size(), false);
  if (!MarkLines(hunk, '+', style.paddle_cxx, paddle)) return;
  for (size_t i = 0; i < paddle.size(); ++i) v.compat[i] = v.compat[i] || paddle[i];
  Name(v.compat_signal, "torch-cxx-on-paddle");
}

HunkVerdict Judge(const RulesData& rules, const FileChange& file, const Hunk& hunk, bool off_torch) {
  const StyleRules& style = rules.style;
  const bool cxx = LanguageOf(file.path) == Language::kCxx;
  const bool python = LanguageOf(file.path) == Language::kPython;
  HunkVerdict v(hunk.lines.size());
  for (const auto& id : hunk.patterns) {
    const PatternRule* pattern = rules.FindPattern(id);
    if (pattern == nullptr || !pattern->style) continue;
    const bool native = *pattern->style == MigrationStyle::kNative;
    if (native && python && !off_torch) continue;  // adaptation under the proxy, not a port
    MarkPattern(*pattern, hunk, native ? v.native : v.compat);
    Name(native ? v.native_signal : v.compat_signal, id);
  }
  if (MarkLines(hunk, '+', style.compat_added, v.compat)) {
    v.proxy = true;
    Name(v.compat_signal, "compat-proxy");
  }
  if (cxx) JudgeCxx(style, hunk, v);
  if (python && off_torch && !file.moved_from.empty() && MarkLines(hunk, '+', style.paddle_added, v.native))
    Name(v.native_signal, "moved-off-torch");
  // In a hunk written onto the custom-op API a bridge is native code; next to the proxy a rewrite
  // goes through the compat layer.
  if (v.native_api && !v.proxy) std::fill(v.compat.begin(), v.compat.end(), false);
  if (v.proxy && !v.native_api) std::fill(v.native.begin(), v.native.end(), false);
  return v;
}

// The line a signal is reported at: its first marked line (new side, old side for a removed line).
int FirstLine(const Hunk& hunk, const std::vector<bool>& marks) {
  for (size_t i = 0; i < marks.size(); ++i) {
    if (!marks[i]) continue;
    const DiffLine& line = hunk.lines[i];
    return line.origin == '-' ? line.old_lineno : line.new_lineno;
  }
  return hunk.new_start;
}

struct Item {
  StyleSignal signal;
  bool harness = false;
};

void AddItems(const FileChange& file, const Hunk& hunk, const HunkVerdict& v, bool harness, std::vector<Item>& out) {
  for (const bool native : {false, true}) {
    const std::vector<bool>& marks = native ? v.native : v.compat;
    const int weight = static_cast<int>(std::count(marks.begin(), marks.end(), true));
    if (weight == 0) continue;
    StyleSignal s{native ? MigrationStyle::kNative : MigrationStyle::kCompat,
                  native ? v.native_signal : v.compat_signal, file.path, FirstLine(hunk, marks), weight};
    out.push_back(Item{std::move(s), harness});
  }
}

// A package directory moved to a Paddle name (torch_x/ -> paddle_x/): one native signal per move.
void AddMoves(const StyleRules& style, const std::vector<TreeMove>& moves, std::vector<Item>& out) {
  for (const TreeMove& m : moves) {
    if (m.kind != "move" || !Matches(style.paddle_package, m.to) || Matches(style.paddle_package, m.from)) continue;
    const bool harness = AnyGlob(style.harness, m.from);
    out.push_back(
        Item{StyleSignal{MigrationStyle::kNative, "package-rename", m.from + " -> " + m.to, 0, m.files}, harness});
  }
}

// Whether any code hunk mentions Paddle at all (without a style signal: counted as compat). CI and
// container files do not count: a fork that runs upstream's torch code in a Paddle image, or compares
// it with a Paddle framework, has migrated nothing.
bool MentionsPaddle(const StyleRules& style, const Analysis& analysis) {
  for (const auto& file : analysis.files) {
    if (AnyGlob(style.environment, file.path)) continue;
    for (const auto& hunk : file.hunks)
      if (hunk.layer != Layer::kOther && style.paddle_added && AnyLine(hunk, LineSide::kAdded, *style.paddle_added))
        return true;
  }
  return false;
}

MigrationStyle Decide(const StyleRules& style, const StyleEvidence& e) {
  const int compat = e.compat_lines, native = e.native_lines;
  if (compat == 0 || native == 0) return compat > 0 ? MigrationStyle::kCompat : MigrationStyle::kNative;
  const int minority = std::min(compat, native);
  const int minority_hunks = compat < native ? e.compat_hunks : e.native_hunks;
  if (minority * 100 >= style.mixed_percent * (compat + native) && minority_hunks >= style.mixed_hunks)
    return MigrationStyle::kMixed;
  return compat >= native ? MigrationStyle::kCompat : MigrationStyle::kNative;
}

// The heaviest item of each distinct signal first, so the report shows what kinds of evidence
// there are; then the next heaviest; up to kStrongestPerStyle per style, heaviest first.
std::vector<StyleSignal> Strongest(std::vector<Item> items) {
  std::stable_sort(items.begin(), items.end(),
                   [](const Item& a, const Item& b) { return a.signal.weight > b.signal.weight; });
  std::vector<StyleSignal> out;
  std::vector<bool> taken(items.size(), false);
  size_t kept[2] = {0, 0};
  for (const bool distinct : {true, false})
    for (size_t i = 0; i < items.size(); ++i) {
      const StyleSignal& s = items[i].signal;
      size_t& n = kept[s.style == MigrationStyle::kNative];
      const bool seen = std::any_of(out.begin(), out.end(),
                                    [&](const StyleSignal& k) { return k.style == s.style && k.signal == s.signal; });
      if (taken[i] || n >= kStrongestPerStyle || (distinct && seen)) continue;
      taken[i] = true;
      ++n;
      out.push_back(s);
    }
  std::stable_sort(out.begin(), out.end(),
                   [](const StyleSignal& a, const StyleSignal& b) { return a.weight > b.weight; });
  return out;
}

// Tallies the items that decide (the library's own, else the harness's) and keeps the strongest.
StyleEvidence Tally(std::vector<Item> items) {
  StyleEvidence e;
  const bool primary = std::any_of(items.begin(), items.end(), [](const Item& i) { return !i.harness; });
  e.harness_only = !primary && !items.empty();
  items.erase(std::remove_if(items.begin(), items.end(), [&](const Item& i) { return i.harness == primary; }),
              items.end());
  for (const Item& i : items) {
    const bool native = i.signal.style == MigrationStyle::kNative;
    (native ? e.native_hunks : e.compat_hunks) += 1;
    (native ? e.native_lines : e.compat_lines) += i.signal.weight;
  }
  e.strongest = Strongest(std::move(items));
  return e;
}

}  // namespace

void DetectStyle(const RulesData& rules, Analysis& analysis) {
  const StyleRules& style = rules.style;
  std::vector<Item> items;
  for (const auto& file : analysis.files) {
    if (file.hunks.empty()) continue;
    const bool off_torch = RewrittenOffTorch(style, file);
    const bool harness = AnyGlob(style.harness, file.path);
    for (const auto& hunk : file.hunks)
      if (hunk.layer != Layer::kOther) AddItems(file, hunk, Judge(rules, file, hunk, off_torch), harness, items);
  }
  AddMoves(style, analysis.moves, items);
  analysis.style_evidence = Tally(std::move(items));
  const StyleEvidence& e = analysis.style_evidence;
  if (e.compat_lines + e.native_lines > 0)
    analysis.style = Decide(style, e);
  else
    analysis.style = MentionsPaddle(style, analysis) ? MigrationStyle::kCompat : MigrationStyle::kNone;
}

}  // namespace forkscope::analyzer::classify
