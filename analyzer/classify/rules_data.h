// The compiled form of a rules file (see analyzer/rules/default_rules.json for the schema):
// globs and regexes turned into RE2 programs once at load. Owned by a Rules value through a
// shared_ptr<const RulesData>; immutable after load, so safe to read from any thread.
#pragma once

#include <re2/re2.h>

#include <memory>
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

struct Glob {
  std::string text;
  std::unique_ptr<RE2> re;
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
  std::unique_ptr<RE2> added;      // some '+' line matches
  std::unique_ptr<RE2> removed;    // some '-' line matches
  std::unique_ptr<RE2> changed;    // some '+' or '-' line matches
  std::unique_ptr<RE2> not_added;  // no '+' line matches
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
  std::unique_ptr<RE2> match;    // some changed line ('+' or '-') matches
  std::unique_ptr<RE2> every;    // every non-blank changed line matches
  std::unique_ptr<RE2> context;  // the enclosing context (function, class or decorator header)
  std::unique_ptr<RE2> body;     // some line of the enclosing definition, header to closing brace
  std::unique_ptr<RE2> file;     // the file's text on either side (its hunks' lines without text)
  std::unique_ptr<RE2> unless;   // none of the hunk's lines (context too), its context or body matches
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
};

struct ViolationRule {
  std::string id;
  ViolationCheck check = ViolationCheck::kHunk;
  std::string message;
  std::string notice;  // added once to Analysis::notices when the rule fires, if not empty
  Severity severity = Severity::kError;  // "severity": error (default), warning or note
  HunkScope scope;
  LineCondition all;
  std::vector<LineCondition> any_of;
  std::unique_ptr<RE2> schema;  // kSchemaEdit: an op schema string on a removed line
  std::unique_ptr<RE2> reason;  // kKernelEdit: an added comment that states the reason
};

struct CompatGapRules {
  std::vector<std::string> patterns;          // pattern ids that make a hunk a compat gap
  std::unique_ptr<RE2> api;                   // on removed lines: group 1 a name, group 2 a method
  std::vector<std::unique_ptr<RE2>> bridges;  // on added lines, tried in order
};

// What the migration style is decided from (analyzer/classify/style.cpp); patterns with a
// "style" add to the evidence too.
struct StyleRules {
  std::unique_ptr<RE2> compat_added;  // an added line that turns the torch proxy on (compat)
  std::unique_ptr<RE2> paddle_added;  // an added line that mentions Paddle at all
  std::unique_ptr<RE2> torch_cxx;     // torch-style C++ API (compat when kept next to Paddle C++)
  std::unique_ptr<RE2> paddle_cxx;    // Paddle C++ reached from torch-style code
  std::unique_ptr<RE2> native_cxx;    // Paddle's own custom-op API (its hunks are native, bridges too)
  std::unique_ptr<RE2> torch_import;  // a Python torch import: a file that drops it was rewritten
  std::unique_ptr<RE2> paddle_package;  // a moved directory's new name that says Paddle (paddle_x/)
  std::vector<Glob> harness;          // tests, examples, benchmarks: evidence used only when alone
  int mixed_percent = 25;             // the smaller style's share of the weight that makes "mixed"
  int mixed_hunks = 2;                // ... and the fewest hunks it must come from
};

struct RulesData {
  std::string origin;   // file path or "<text>"
  std::string version;  // 12 hex digits of FNV-1a 64 over the file text
  std::vector<PathRule> path_rules;
  std::vector<HunkRule> hunk_rules;
  std::vector<PatternRule> patterns;
  std::vector<ViolationRule> violations;
  CompatGapRules compat_gaps;
  StyleRules style;
  MiningOptions mining;  // the "mining" section; defaults when absent

  const PatternRule* FindPattern(std::string_view id) const;
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
