// Mined patterns in a maintainer's words, and the order that puts what a migration does first. A mined
// pattern is a group of near-identical hunks; what it does (adds, edits or deletes lines), where (CI
// workflows, shell scripts, Python build files, kernels, docs …) and a real line of its representative
// hunk say more than its normalised tokens ("removes `$ID=/$ID/$ID/cuda-$NUM`"). Pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analyzer/patterns/pattern_mining.h"

namespace forkscope::analyzer {

// What a pattern's hunks do: only add lines, only delete lines, or both.
enum class PatternAction { kAdds, kEdits, kRemoves };
const char* PatternActionName(PatternAction action);  // "adds", "edits", "removes"
PatternAction ActionOf(const HunkFingerprint& fp);

// Whether a file is CI configuration or documentation: under .github/, ci/, .circleci/, docs/, a
// .gitlab-ci / azure-pipelines / Jenkinsfile, or a doc-kind file (.md, .rst).
bool IsCiOrDocs(FileKind kind, std::string_view path);

// Where the hunks are: an id ("ci-workflows", "ci-scripts", "docs", "python-build", "kernel", "shell",
// ...) and its words ("CI workflows", "CI scripts", "docs", "Python build files", "kernel code", ...).
std::string PlaceIdOf(FileKind kind, Layer layer, std::string_view path);
std::string PlaceWords(std::string_view place_id);

// A mined pattern for people: its English line, and the same as a code with parameters (as messages
// are: docs/openapi.yaml, MessageCode) — "pattern.adds" {lines, place, line}, "pattern.removes"
// {lines, place, line}, "pattern.edits" {removed, added, place, from, to}; place is a PlaceIdOf id.
struct PatternDescription {
  std::string text;
  std::string code;
  std::vector<std::pair<std::string, std::string>> params;
};

// "Deletes 5 lines from CI scripts, e.g. `export CUDA_HOME=/usr/local/cuda-12.4`", "Changes C++
// bindings and host code: `torch::Tensor out` → `paddle::Tensor out` (1 line replaced by 1)".
// example_path and example_lines (origin character + text, as PatternExample) are the representative
// hunk's; without them the fingerprint's tokens are shown.
PatternDescription DescribeMinedPattern(const HunkFingerprint& fp, std::string_view example_path,
                                        const std::vector<std::string>& example_lines);

// The catalogue's order, before forks and occurrences: 0 what a migration does (named patterns;
// additions and edits of code), 1 additions and edits of CI or docs, 2 deletions of code, 3 deletions
// of CI or docs. action: nullopt for a named pattern.
int MigrationRank(std::optional<PatternAction> action, bool ci_or_docs);

}  // namespace forkscope::analyzer
