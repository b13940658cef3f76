// The compiled form of a rules file (see analyzer/rules/default_rules.json for the schema):
// globs and regexes turned into RE2 programs, each on its first use (LazyRegex). Owned by a Rules
// value through a shared_ptr<const RulesData>; immutable after load apart from those one-time
// compilations, which are thread-safe, so safe to read from any thread.
#pragma once

#include <re2/re2.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/model/model.h"
#include "analyzer/patterns/pattern_mining.h"

namespace forkscope::analyzer {

// Translates a path glob to an RE2 pattern for a full match against a repo-relative path.
// `**` spans directories (`a/**/b`, `dir/**`), `*` and `?` stay inside one segment, `{a,b}`
// is an alternation and `[...]` a character class. A glob without '/' matches the base name in
// any directory (like .gitignore); a trailing '/' means everything below that directory.
std::string GlobToRegex(std::string_view glob);

// An RE2 program compiled on first use, once per process (std::call_once), or handed over already
// compiled. Copies share the program (rules that name the same pattern, such as one path set, compile
// it once). Reads like the std::unique_ptr<RE2> it replaces: false when there is no pattern, `*re`
// for the program. A pattern that fails to compile on first use (only rules not checked at load can
// have one, see Rules::FromJson) is logged once and matches nothing.
class LazyRegex {
 public:
  LazyRegex() = default;
  explicit LazyRegex(std::string pattern);            // compiled on first use
  explicit LazyRegex(std::unique_ptr<RE2> compiled);  // compiled already

  explicit operator bool() const { return state_ != nullptr; }
  const RE2& operator*() const { return Get(); }
  const RE2* operator->() const { return &Get(); }
  const std::string& pattern() const { return state_->pattern; }
  bool compiled() const { return state_ && state_->ready.load(std::memory_order_acquire); }

  // The options every rule regex is compiled with.
  static RE2::Options Options();
  // RE2 programs compiled on first use in this process so far (tests and debug logs).
  static int64_t CompiledOnFirstUse();

 private:
  struct State {
    std::string pattern;
    std::once_flag once;
    std::unique_ptr<RE2> re;
    std::atomic<bool> ready{false};
  };
  const RE2& Get() const;
  std::shared_ptr<State> state_;
};

struct Glob {
  std::string text;
  LazyRegex re;
  bool Matches(std::string_view path) const;
};

// Which files and hunks a pattern or violation rule looks at; an empty list means "any".
struct HunkScope {
  std::vector<Glob> paths;
  std::vector<Layer> file_layers;  // FileChange::layer
  std::vector<Layer> hunk_layers;  // Hunk::layer
  std::vector<FileStatus> statuses;
};

// Conditions on a hunk's lines; a null regex is no condition. All set conditions must hold.
struct LineCondition {
  LazyRegex added;      // some '+' line matches
  LazyRegex removed;    // some '-' line matches
  LazyRegex changed;    // some '+' or '-' line matches
  LazyRegex not_added;  // no '+' line matches
};

// First match wins: the layer of a path.
struct PathRule {
  Glob glob;
  Layer layer = Layer::kOther;
};

// First match wins: a content rule that overrides the path layer for one hunk. Every set
// condition must hold; a null regex is no condition.
struct HunkRule {
  std::string id;
  std::vector<Glob> paths;
  LazyRegex match;              // some changed line ('+' or '-') matches
  LazyRegex every;              // every non-blank changed line matches
  LazyRegex context;            // the enclosing context (function, class or decorator header)
  std::vector<LazyRegex> body;  // each matches some line of the enclosing definition, header to closing brace
  LazyRegex file;               // the file's text on either side (its hunks' lines without text)
  LazyRegex unless;             // none of the hunk's lines (context too), its context or body matches
  Layer layer = Layer::kOther;
};

struct PatternRule {
  std::string id;
  Layer layer = Layer::kOther;
  std::string description;
  std::optional<MigrationStyle> style;  // what the pattern says about the migration style
  HunkScope scope;
  LineCondition all;                  // must hold
  std::vector<LineCondition> any_of;  // one must hold, when not empty
};

// The built-in semantics a violation rule applies; "hunk" is the generic, pattern-like one.
enum class ViolationCheck {
  kHunk,
  kFormattingOnly,
  kSchemaEdit,
  kKernelEdit,
  kRenamedFile,
  kDeletedFile,
  kCompatGapNoRemoval,
  // Tree-wide, over the fork's Python package at its head (analyzer/integration/eager_import.h); the
  // hunk pass skips them.
  kEagerImportMissing,
  kFunctionLevelTorchImport,
  kLazyLoader,
};

struct ViolationRule {
  std::string id;
  ViolationCheck check = ViolationCheck::kHunk;
  std::string message;
  std::string notice;                    // added once to Analysis::notices when the rule fires, if not empty
  Severity severity = Severity::kError;  // "severity": error (default), warning or note
  HunkScope scope;
  LineCondition all;
  std::vector<LineCondition> any_of;
  LazyRegex schema;  // kSchemaEdit: an op schema string on a removed line
  LazyRegex reason;  // kKernelEdit: an added comment that states the reason
};

struct CompatGapRules {
  std::vector<std::string> patterns;  // pattern ids that make a hunk a compat gap
  LazyRegex api;                      // on removed lines: group 1 a name, group 2 a method
  std::vector<LazyRegex> bridges;     // on added lines, tried in order
};

// What the migration style is decided from (analyzer/classify/style.cpp); patterns with a
// "style" add to the evidence too.
struct StyleRules {
  LazyRegex compat_added;         // an added line that turns the torch proxy on (compat)
  LazyRegex paddle_added;         // an added line that mentions Paddle at all
  LazyRegex torch_cxx;            // torch-style C++ API (compat when kept next to Paddle C++)
  LazyRegex paddle_cxx;           // Paddle C++ reached from torch-style code
  LazyRegex native_cxx;           // Paddle's own custom-op API (its hunks are native, bridges too)
  LazyRegex torch_import;         // a Python torch import: a file that drops it was rewritten
  LazyRegex paddle_package;       // a moved directory's new name that says Paddle (paddle_x/)
  std::vector<Glob> harness;      // tests, examples, benchmarks: evidence used only when alone
  std::vector<Glob> environment;  // CI and containers: where a run happens, not what is migrated
  int mixed_percent = 25;         // the smaller style's share of the weight that makes "mixed"
  int mixed_hunks = 2;            // ... and the fewest hunks it must come from
};

// The "eager_import" section: what the eager-import lint (analyzer/integration/eager_import.h) needs
// besides its three violation rules.
struct EagerImportRules {
  // Top-level packages besides torch that import torch while they load (a module importing one at
  // module level imports torch too, and the loader's compat scope must name it).
  std::vector<std::string> proxy_sensitive;
  // Directory names whose Python packages are not the library's (tests, examples, vendored code).
  std::vector<std::string> skip_dirs;
  // A comment just above a lazy import that documents an allowed exception (its removal condition);
  // such an import is reported at note severity.
  LazyRegex documented;
  // A comment that only excuses a circular import: never an exception (fix the import order).
  LazyRegex circular;
  size_t max_files = 5000;              // Python files of the package read at most
  size_t max_bytes = size_t{64} << 20;  // and their total size
};

struct RulesData {
  std::string origin;   // file path or "<text>"
  std::string version;  // 12 hex digits of FNV-1a 64 over the file text
  std::vector<PathRule> path_rules;
  std::vector<HunkRule> hunk_rules;
  // Whole added or deleted files: first match wins over the per-definition classification. Only
  // `paths`, `file` (the side's text matches) and `unless` (the side's text does not match) apply.
  std::vector<HunkRule> whole_file_rules;
  std::vector<PatternRule> patterns;
  std::vector<ViolationRule> violations;
  CompatGapRules compat_gaps;
  StyleRules style;
  MiningOptions mining;           // the "mining" section; defaults when absent
  EagerImportRules eager_import;  // the "eager_import" section; nothing proxy-sensitive when absent

  const PatternRule* FindPattern(std::string_view id) const;
  // The regexes these rules name (a glob list counts once; a shared program once per rule naming it),
  // and how many of them are compiled so far.
  int RegexCount() const;
  int CompiledRegexCount() const;
};

// Matching helpers shared by the classifier and lint.
enum class LineSide { kAdded, kRemoved, kChanged };
bool AnyLine(const Hunk& hunk, LineSide side, const RE2& re);
bool AnyGlob(const std::vector<Glob>& globs, std::string_view path);
// Whether the file (and hunk, when given) is inside the scope; hunk_layers are ignored without one.
bool InScope(const HunkScope& scope, const FileChange& file, const Hunk* hunk);
bool Holds(const LineCondition& condition, const Hunk& hunk);
// `all` holds and, when any_of is not empty, one of any_of holds.
bool HoldsAll(const LineCondition& all, const std::vector<LineCondition>& any_of, const Hunk& hunk);

}  // namespace forkscope::analyzer
