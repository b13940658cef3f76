// The classifier: puts every changed file and hunk into one layer, tags named patterns, and lints
// the whole analysis for minimal-modification violations, compat-gap workarounds and the migration
// style. Pure functions over the value model; thread-safe given a const Rules.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/classify/rules.h"
#include "analyzer/model/model.h"

namespace forkscope::analyzer {

// The layer of a path by path rules alone.
Layer ClassifyPath(const Rules& rules, std::string_view path);

// The text of another file in the tree a file's hunks come from — the fork's tree for an added or
// modified file, the base's for a deleted one — or "" when that tree has no such file. The classifier
// asks it only for sources that may define what a C/C++ header's hunk declares (a header's declarations
// take the layer of the definitions they declare): the source beside the header, then the analysis's
// other changed sources (FileSource::related). Without it such hunks are classified by their own lines.
using TreeText = std::function<std::string(const std::string& path)>;

// The sources read to find what headers declare, kept across the files of one analysis so that each
// is read and classified once. Used by one thread at a time; lives as long as the classification.
class DefinitionCache {
 public:
  DefinitionCache();
  ~DefinitionCache();
  DefinitionCache(const DefinitionCache&) = delete;
  DefinitionCache& operator=(const DefinitionCache&) = delete;
  struct Entries;  // defined by the classifier
  Entries& entries() { return *entries_; }

 private:
  std::unique_ptr<Entries> entries_;
};

// Full old/new contents of a changed file, used to find the enclosing function or decorator of a
// hunk. Either may be empty (added/deleted/binary files, or contents unavailable).
struct FileSource {
  std::string_view old_text;
  std::string_view new_text;
  TreeText tree_text = nullptr;                       // optional
  const std::vector<std::string>* related = nullptr;  // optional: the analysis's changed C/C++ paths
  DefinitionCache* definitions = nullptr;             // optional: shared by the files of one analysis (keyed by
                                                      // path and by whether the file is deleted: base or fork tree)
};

// Sets file.path_layer, each hunk's layer, context and patterns, and file.layer (the layer of most
// changed lines; path_layer for binary files or files without hunks).
void ClassifyFile(const Rules& rules, const FileSource& source, FileChange& file);

// After every file is classified: fills analysis.layers (summary), patterns (counts per id),
// violations (and each hunk's violations[] ids), compat_gaps, style and deprecation notices.
void LintAnalysis(const Rules& rules, Analysis& analysis);

}  // namespace forkscope::analyzer
