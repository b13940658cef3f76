// The value model of one analysis: files, hunks, layers, patterns, violations, compat gaps.
// Plain structs, copied freely between threads; produced by analyzer/, stored by storage/.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace forkscope::analyzer {

enum class Layer { kKernel, kBuild, kCppCompat, kPython, kOther };
inline constexpr std::array<Layer, 5> kAllLayers = {Layer::kKernel, Layer::kBuild, Layer::kCppCompat, Layer::kPython,
                                                    Layer::kOther};
const char* LayerName(Layer layer);  // "kernel", "build", ...
std::optional<Layer> LayerFromName(const std::string& name);

// As git's --raw letters: A, M, D, R, C, T. kTypeChanged: a file became a symlink, a submodule or the
// reverse at the same path. kCopied comes only from a parsed patch: `git diff -M` never copies.
enum class FileStatus { kAdded, kModified, kDeleted, kRenamed, kCopied, kTypeChanged };
const char* FileStatusName(FileStatus status);
std::optional<FileStatus> FileStatusFromName(const std::string& name);

// Which kind of Paddle migration a branch is: through the torch compatibility layer, a port onto
// Paddle's own API, both with substantial weight, or none at all.
enum class MigrationStyle { kCompat, kNative, kMixed, kNone };
const char* MigrationStyleName(MigrationStyle style);  // "compat", "native", "mixed", "none"
std::optional<MigrationStyle> MigrationStyleFromName(const std::string& name);

// How an analysis' base was chosen: git's merge-base of the two heads, named by the user (`--base`, a
// check's baseline), or searched for (a re-imported fork shares no history with upstream). kUnknown: not
// recorded (reports of older releases).
enum class BaseSource { kUnknown, kMergeBase, kGiven, kSearched };
const char* BaseSourceName(BaseSource source);  // "", "merge-base", "given", "searched"
std::optional<BaseSource> BaseSourceFromName(const std::string& name);

// One line of a hunk: origin is '+', '-' or ' '.
struct DiffLine {
  char origin = ' ';
  std::string text;  // without the trailing newline
  int old_lineno = -1;
  int new_lineno = -1;
};

// How much a violation matters to a CI gate; the names are SARIF's result levels.
enum class Severity { kError, kWarning, kNote };
const char* SeverityName(Severity severity);  // "error", "warning", "note"
std::optional<Severity> SeverityFromName(const std::string& name);

struct Violation {
  std::string rule;  // e.g. "formatting-only"
  std::string path;  // the file; for a grouped finding the directory, with a trailing '/'
  int line = 0;      // the matched line: new side, old side in a deleted file; 0 when file-wide
  std::string message;
  Severity severity = Severity::kError;  // the rule's
  std::string snippet{};                 // the matched line's text, "" when file-wide (part of the fingerprint)
  std::vector<std::string> files{};      // a grouped finding (moved package, deleted directory): its files
  // The message's parameters, from the finding (its code is the rule): what the rule's message appends
  // ("schema", "api", "from"/"to", "dir"/"count"/"names"), so a client can say it in its own language.
  std::vector<std::pair<std::string, std::string>> params{};
};

// A finding's identity across line shifts: 16 hex digits of rule, path and the snippet with its
// whitespace collapsed. Equal findings at different lines share it (a baseline counts them).
std::string ViolationFingerprint(const Violation& violation);

struct CompatGap {
  std::string path;
  int line = 0;
  std::string api;           // the torch/ATen API that Paddle lacks and the hunk bridges
  std::string bridge;        // what it is bridged with (e.g. "paddle::experimental::foo")
  std::string scope;         // from the marker comment, if stated
  std::string removal;       // removal condition, if stated
  std::string issue;         // Paddle issue link, if stated
  std::string reproduction;  // minimal reproduction for that issue (a command, a snippet or a link), if stated
  std::string origin;        // DEP-3 style provenance, if stated
  std::string forwarded;
  std::string applied_upstream;
};

struct Hunk {
  int old_start = 0;
  int old_lines = 0;
  int new_start = 0;
  int new_lines = 0;
  std::string header;  // the text after the second "@@"
  std::vector<DiffLine> lines;
  // Filled by the classifier.
  Layer layer = Layer::kOther;
  std::string context;  // enclosing function/decorator the classifier used, if any
  std::vector<std::string> patterns;
  std::vector<std::string> violations;  // rule ids; details in Analysis::violations
  int additions() const;
  int deletions() const;
};

struct FileChange {
  std::string path;      // new path (old path for deletions)
  std::string old_path;  // set for renamed/copied
  FileStatus status = FileStatus::kModified;
  bool binary = false;
  bool truncated = false;  // hunks dropped because the file's diff exceeded the size cap
  int additions = 0;
  int deletions = 0;
  int similarity = 0;  // renamed/copied: percent, git's score
  // An added file that forkscope traces to upstream where `git diff -M` does not (its status stays
  // kAdded, the upstream side keeps its own entry):
  std::string moved_from;            // the deleted upstream file it replaces, paired by a directory move
  std::string copied_from;           // the upstream file (still present) it copies, verbatim or adapted
  Layer path_layer = Layer::kOther;  // from path rules alone
  Layer layer = Layer::kOther;       // layer of most changed lines
  std::vector<Hunk> hunks;
};

struct LayerSummary {
  int files = 0;
  int hunks = 0;
  int additions = 0;
  int deletions = 0;
};

struct PatternCount {
  std::string id;
  Layer layer = Layer::kOther;
  std::string description;
  int count = 0;
};

// A directory moved or copied wholesale (torch_x/ -> paddle_x/, tests/ -> tests_paddle/).
struct TreeMove {
  std::string kind;  // "move" or "copy"
  std::string from;  // directory with trailing '/'
  std::string to;
  int files = 0;
  int verbatim = 0;  // byte-identical
  int adapted = 0;   // edited
};

// One hunk (or one directory move) that speaks for a migration style.
struct StyleSignal {
  MigrationStyle style = MigrationStyle::kNone;  // kCompat or kNative
  std::string signal;  // what it shows: a pattern id, "compat-proxy", "torch-cxx-on-paddle", "package-rename"
  std::string path;
  int line = 0;    // as for violations; 0 for a directory move
  int weight = 0;  // lines of evidence it carries (files, for a move)
};

// Why the analysis has its style: evidence counted per style over the changed code.
struct StyleEvidence {
  int compat_hunks = 0;
  int compat_lines = 0;
  int native_hunks = 0;
  int native_lines = 0;
  bool harness_only = false;           // decided by tests, examples and benchmarks alone
  std::vector<StyleSignal> strongest;  // the heaviest signals of each style, heaviest first
};

struct RefInfo {
  std::string url;
  std::string branch;
  std::string sha;
};

// How far the fork head is from a given or searched base. The search (--base auto, a fork with no
// history in common with upstream) scores each upstream commit by the fork's lines its files keep;
// the fields after commits_scanned are that search's (0 and "" for a given base).
struct BaseDistance {
  int files = 0;            // files that differ between the base and the fork head
  int lines = 0;            // lines added and removed between them
  int commits_scanned = 0;  // upstream commits the search scored
  int kept_lines = 0;       // the fork's non-blank lines that the base's files at the same paths hold
  int fork_lines = 0;       // the fork's non-blank lines in all
  std::string runner_up;    // the best commit holding different content at the fork's paths ("" = none)
  int runner_up_kept_lines = 0;
  int margin_lines = 0;           // kept_lines - runner_up_kept_lines (0 when the runner-up lost on the tie-break;
                                  // negative when the runner-up keeps more but the base is newer within the tie margin)
  int equivalent_commits = 0;     // other scanned commits with the same content at the fork's paths as the base
  int tie_margin_lines = 0;       // candidates keeping at most this many lines fewer than the best tie with it
  int64_t import_time = 0;        // the fork's first (root) commit's time, unix seconds: no newer candidate counts
  int newer_than_import = 0;      // upstream commits skipped because they are newer than the import
  std::string confidence;         // "high" | "low" for a searched base; "" for a given base
  std::string confidence_reason;  // why it is low ("" when high)
};

struct Analysis {
  RefInfo fork;
  RefInfo upstream;
  std::string merge_base;
  BaseSource base_source = BaseSource::kUnknown;
  std::optional<BaseDistance> base_distance;
  std::string upstream_branch_choice;  // "given", "default", "auto"
  int ahead = 0;
  int behind = 0;
  MigrationStyle style = MigrationStyle::kNone;
  StyleEvidence style_evidence;
  bool cached = false;
  std::string rules_version;
  std::array<LayerSummary, 5> layers{};  // indexed by Layer
  std::vector<FileChange> files;
  std::vector<PatternCount> patterns;
  std::vector<Violation> violations;
  std::vector<CompatGap> compat_gaps;
  std::vector<TreeMove> moves;
  std::vector<std::string> notices;  // e.g. branch fallbacks, deprecated APIs
  // The first resolution_notices of notices come from resolving the pair (branches, base): a cached
  // analysis answers with the new request's instead of the stored ones.
  int resolution_notices = 0;
  // The Python packages the fork's distribution installs (analyzer/model/python_package.h), the one to
  // import first: what the validation path imports.
  std::vector<std::string> packages;
  std::vector<std::string> migration_branches;  // every paddle* branch of the fork
  int64_t created_at = 0;                       // unix seconds
  int64_t duration_ms = 0;
};

}  // namespace forkscope::analyzer
