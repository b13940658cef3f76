// The classifier: puts every changed file and hunk into one layer, tags named patterns, and lints
// the whole analysis for minimal-modification violations, compat-gap workarounds and the migration
// style. Pure functions over the value model; thread-safe given a const Rules.
#pragma once

#include <string_view>

#include "analyzer/model/model.h"
#include "analyzer/classify/rules.h"

namespace forkscope::analyzer {

// The layer of a path by path rules alone.
Layer ClassifyPath(const Rules& rules, std::string_view path);

// Full old/new contents of a changed file, used to find the enclosing function or decorator of a
// hunk. Either may be empty (added/deleted/binary files, or contents unavailable).
// host_reachable: the file (new side) is reached through #include from the extension's binding files
// other than only through device-code files (classify/include_reach.h); false when unknown.
struct FileSource {
  std::string_view old_text;
  std::string_view new_text;
  bool host_reachable = false;
};

// Sets file.path_layer, each hunk's layer, context and patterns, and file.layer (the layer of most
// changed lines; path_layer for binary files or files without hunks).
void ClassifyFile(const Rules& rules, const FileSource& source, FileChange& file);

// After every file is classified: fills analysis.layers (summary), patterns (counts per id),
// violations (and each hunk's violations[] ids), compat_gaps, style and deprecation notices.
void LintAnalysis(const Rules& rules, Analysis& analysis);

}  // namespace forkscope::analyzer
