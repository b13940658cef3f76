// Glob translation, lazily compiled regexes and the scope/condition matching of compiled rules.
#include "analyzer/classify/rules_data.h"
#include "base/log.h"

#include <unordered_map>

#include <algorithm>
#include <cstdint>

namespace forkscope::analyzer {
namespace {

// Appends the regex for one glob character class or brace group starting at glob[i]; returns the
// index of its last character.
size_t TranslateGroup(std::string_view glob, size_t i, std::string& out) {
  const char open = glob[i];
  const char close = open == '[' ? ']' : '}';
  const size_t end = glob.find(close, i + 1);
  if (end == std::string_view::npos) {
    out += RE2::QuoteMeta(std::string(1, open));
    return i;
  }
  std::string_view body = glob.substr(i + 1, end - i - 1);
  if (open == '[') {
    out += '[';
    for (size_t k = 0; k < body.size(); ++k) out += (k == 0 && body[k] == '!') ? '^' : body[k];
    out += ']';
    return end;
  }
  out += "(?:";
  for (char c : body) out += c == ',' ? std::string("|") : RE2::QuoteMeta(std::string(1, c));
  out += ')';
  return end;
}

// Appends the regex for a run of '*' starting at glob[i]; returns the index of its last '*'.
size_t TranslateStars(std::string_view glob, size_t i, std::string& out) {
  if (i + 1 >= glob.size() || glob[i + 1] != '*') {
    out += "[^/]*";
    return i;
  }
  const bool at_segment_start = i == 0 || glob[i - 1] == '/';
  if (at_segment_start && i + 2 < glob.size() && glob[i + 2] == '/') {
    out += "(?:.*/)?";
    return i + 2;
  }
  out += ".*";
  return i + 1;
}

std::atomic<int64_t> compiled_on_first_use{0};

template <typename T>
bool ListAllows(const std::vector<T>& allowed, T value) {
  return allowed.empty() || std::find(allowed.begin(), allowed.end(), value) != allowed.end();
}

}  // namespace

std::string GlobToRegex(std::string_view glob) {
  std::string pattern(glob);
  if (!pattern.empty() && pattern.back() == '/') pattern += "**";
  if (pattern.find('/') == std::string::npos) pattern = "**/" + pattern;
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '*')
      i = TranslateStars(pattern, i, out);
    else if (c == '?')
      out += "[^/]";
    else if (c == '[' || c == '{')
      i = TranslateGroup(pattern, i, out);
    else
      out += RE2::QuoteMeta(std::string(1, c));
  }
  return out;
}

LazyRegex::LazyRegex(std::string pattern) : state_(std::make_shared<State>()) { state_->pattern = std::move(pattern); }

LazyRegex::LazyRegex(std::unique_ptr<RE2> compiled) : state_(std::make_shared<State>()) {
  state_->pattern = compiled->pattern();
  state_->re = std::move(compiled);
  state_->ready.store(true, std::memory_order_release);
}

RE2::Options LazyRegex::Options() {
  RE2::Options options;
  options.set_log_errors(false);
  return options;
}

int64_t LazyRegex::CompiledOnFirstUse() { return compiled_on_first_use.load(); }

const RE2& LazyRegex::Get() const {
  State& s = *state_;
  if (s.ready.load(std::memory_order_acquire)) return *s.re;
  std::call_once(s.once, [&s] {
    if (s.re) return;
    s.re = std::make_unique<RE2>(s.pattern, Options());
    compiled_on_first_use.fetch_add(1);
    if (!s.re->ok())
      base::Log(base::LogArea::kAnalyzer)
          ->error("rules regex=\"{}\" error=\"{}\" (matches nothing)", s.pattern, s.re->error());
    s.ready.store(true, std::memory_order_release);
  });
  return *s.re;
}

bool Glob::Matches(std::string_view path) const { return re && RE2::FullMatch(path, *re); }

const PatternRule* RulesData::FindPattern(std::string_view id) const {
  for (const auto& p : patterns)
    if (p.id == id) return &p;
  return nullptr;
}

namespace {

// Calls count(regex) for every regex of the rules.
template <typename F>
void ForEachRegex(const RulesData& d, F&& count) {
  auto globs = [&](const std::vector<Glob>& list) {
    for (const auto& g : list) count(g.re);
  };
  auto condition = [&](const LineCondition& c) {
    for (const LazyRegex* re : {&c.added, &c.removed, &c.changed, &c.not_added}) count(*re);
  };
  auto scoped = [&](const HunkScope& scope, const LineCondition& all, const std::vector<LineCondition>& any_of) {
    globs(scope.paths);
    condition(all);
    for (const auto& c : any_of) condition(c);
  };
  for (const auto& r : d.path_rules) count(r.glob.re);
  for (const auto& r : d.whole_file_rules) {
    globs(r.paths);
    count(r.file);
    count(r.unless);
  }
  for (const auto& r : d.hunk_rules) {
    globs(r.paths);
    for (const LazyRegex* re : {&r.match, &r.every, &r.context, &r.file, &r.unless}) count(*re);
    for (const auto& re : r.body) count(re);
  }
  for (const auto& p : d.patterns) scoped(p.scope, p.all, p.any_of);
  for (const auto& v : d.violations) {
    scoped(v.scope, v.all, v.any_of);
    count(v.schema);
    count(v.reason);
  }
  count(d.compat_gaps.api);
  for (const auto& b : d.compat_gaps.bridges) count(b);
  const StyleRules& st = d.style;
  for (const LazyRegex* re : {&st.compat_added, &st.paddle_added, &st.torch_cxx, &st.paddle_cxx, &st.native_cxx,
                              &st.torch_import, &st.paddle_package})
    count(*re);
  globs(st.harness);
  globs(st.environment);
}

}  // namespace

int RulesData::RegexCount() const {
  int n = 0;
  ForEachRegex(*this, [&n](const LazyRegex& re) { n += re ? 1 : 0; });
  return n;
}

int RulesData::CompiledRegexCount() const {
  int n = 0;
  ForEachRegex(*this, [&n](const LazyRegex& re) { n += re.compiled() ? 1 : 0; });
  return n;
}

bool AnyLine(const Hunk& hunk, LineSide side, const RE2& re) {
  for (const auto& line : hunk.lines) {
    const bool wanted =
        (line.origin == '+' && side != LineSide::kRemoved) || (line.origin == '-' && side != LineSide::kAdded);
    if (wanted && RE2::PartialMatch(line.text, re)) return true;
  }
  return false;
}

bool AnyGlob(const std::vector<Glob>& globs, std::string_view path) {
  // Every rule asks about the same path for each hunk of a file: remember the answers per glob list
  // for the path last asked about (per thread; the rules outlive any one classification).
  thread_local std::string cached_path;
  thread_local std::unordered_map<const void*, bool> cached;
  if (path != cached_path) {
    cached_path.assign(path);
    cached.clear();
  }
  auto [it, inserted] = cached.try_emplace(&globs, false);
  if (!inserted) return it->second;
  for (const auto& g : globs)
    if (g.Matches(path)) return it->second = true;
  return false;
}

bool InScope(const HunkScope& scope, const FileChange& file, const Hunk* hunk) {
  if (!ListAllows(scope.file_layers, file.layer)) return false;
  if (!ListAllows(scope.statuses, file.status)) return false;
  if (hunk != nullptr && !ListAllows(scope.hunk_layers, hunk->layer)) return false;
  return scope.paths.empty() || AnyGlob(scope.paths, file.path);
}

bool Holds(const LineCondition& c, const Hunk& hunk) {
  if (c.added && !AnyLine(hunk, LineSide::kAdded, *c.added)) return false;
  if (c.removed && !AnyLine(hunk, LineSide::kRemoved, *c.removed)) return false;
  if (c.changed && !AnyLine(hunk, LineSide::kChanged, *c.changed)) return false;
  return !(c.not_added && AnyLine(hunk, LineSide::kAdded, *c.not_added));
}

bool HoldsAll(const LineCondition& all, const std::vector<LineCondition>& any_of, const Hunk& hunk) {
  if (!Holds(all, hunk)) return false;
  if (any_of.empty()) return true;
  for (const auto& c : any_of)
    if (Holds(c, hunk)) return true;
  return false;
}

}  // namespace forkscope::analyzer
