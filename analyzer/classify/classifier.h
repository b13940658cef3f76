// The classifier: puts every changed file and hunk into one layer, tags named patterns, and lints
// the whole analysis for minimal-modification violations, compat-gap workarounds and the migration
// style. Pure functions over the value model; thread-safe given a const Rules.
#pragma once

#include <functional>
#include <string_view>
#include <utility>

#include "analyzer/model/model.h"
#include "analyzer/classify/rules.h"

namespace forkscope::analyzer {

// The layer of a path by path rules alone.
Layer ClassifyPath(const Rules& rules, std::string_view path);

// Whether the file (new side) is reached through #include from the extension's binding files other
// than only through device-code files (classify/include_reach.h). Either known (false: unknown) or asked
// of a function, which the classifier calls only for a C/C++ hunk that no rule placed and whose path
// says kernel: the include graph behind it is read only when some hunk needs it.
class HostReachable {
 public:
  HostReachable(bool known = false) : known_(known) {}  // NOLINT: a plain answer converts
  explicit HostReachable(std::function<bool()> ask) : ask_(std::move(ask)) {}
  bool operator()() const { return ask_ ? ask_() : known_; }

 private:
  bool known_ = false;
  std::function<bool()> ask_;
};

// Full old/new contents of a changed file, used to find the enclosing function or decorator of a
// hunk. Either may be empty (added/deleted/binary files, or contents unavailable).
struct FileSource {
  std::string_view old_text;
  std::string_view new_text;
  HostReachable host_reachable = HostReachable();
};

// Sets file.path_layer, each hunk's layer, context and patterns, and file.layer (the layer of most
// changed lines; path_layer for binary files or files without hunks).
void ClassifyFile(const Rules& rules, const FileSource& source, FileChange& file);

// After every file is classified: fills analysis.layers (summary), patterns (counts per id),
// violations (and each hunk's violations[] ids), compat_gaps, style and deprecation notices.
void LintAnalysis(const Rules& rules, Analysis& analysis);

}  // namespace forkscope::analyzer
