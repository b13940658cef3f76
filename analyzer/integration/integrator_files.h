// Internal to analyzer/integration: the integrator's files as read (ParseGitmodules, the .gitignore
// and tests/test_configs.yaml readers) and the layout that the text to paste follows.
#pragma once

#include <string>
#include <vector>

namespace forkscope::analyzer::integration {

struct SubmoduleEntry {
  std::string name;  // [submodule "<name>"]
  std::string path;
  std::string url;
  std::string branch;  // "" when not set
};

// The submodule sections of a .gitmodules file (git-config syntax: sections, key = value, quoted
// values, '#' and ';' comments; keys case-insensitive). Entries without a path are dropped.
std::vector<SubmoduleEntry> ParseGitmodules(const std::string& text);

// The patterns of a .gitignore, each without a leading or trailing '/' (comments, blank lines and
// negations dropped).
std::vector<std::string> GitignorePatterns(const std::string& text);
// Whether some pattern names the artifact: its last path component is the target name and the rest,
// when there is any, is the ops package directory (ops_dir, "packages/paddlefleet_ops/src/paddlefleet_ops")
// or a suffix of it, or is relative to the .gitignore's directory (gitignore_dir).
bool ArtifactIgnored(const std::vector<std::string>& patterns, const std::string& gitignore_dir,
                     const std::string& ops_dir, const std::string& target);

// The test paths of tests/test_configs.yaml ("- test_case: [a, b]" entries).
std::vector<std::string> TestConfigCases(const std::string& text);

// Where things go in this integrator: derived from the files found, PaddleFleet's layout by default.
struct IntegratorLayout {
  std::string third_party = "packages/paddlefleet_ops/third_party";  // where submodules live
  std::string build_utils = "packages/paddlefleet_ops/build_utils.py";
  std::string loader = "packages/paddlefleet_ops/src/paddlefleet_ops/__init__.py";
  std::string import_test = "tests/single_card_tests/custom_ops/test_ops_import.py";
  std::string ops_package = "paddlefleet_ops";  // the import name of the loader's package
  std::string OpsDir() const;                   // the loader's directory
  std::string BuildUtilsDir() const;            // build_utils.py's directory ("" at the root)
};

// What a library's missing steps need to be written out.
struct PasteContext {
  IntegratorLayout layout;
  std::string lib;                        // the submodule directory's name ("DeepGEMM")
  std::string path;                       // the submodule path
  std::string url;                        // the fork's URL (credentials stripped)
  std::string branch;                     // the fork's migration branch ("" = not said)
  bool branch_line = false;               // write `branch = ...` (the fork is pinned twice)
  std::string module;                     // the import name the loader loads ("deep_gemm")
  std::vector<std::string> artifacts;     // target names (default: module)
  std::vector<std::string> needed_scope;  // default: {module}
};

std::string PasteGitmodules(const PasteContext& c);
std::string PasteEcosystemLibrary(const PasteContext& c);
std::string PasteSubmoduleCheck(const PasteContext& c);
std::string PasteLoader(const PasteContext& c);
std::string PasteGitignore(const PasteContext& c, const std::vector<std::string>& targets);
std::string PasteImportTest(const PasteContext& c);
// The loader's scope lacks packages that import torch while the library loads.
std::string PasteScopeFix(const PasteContext& c, const std::vector<std::string>& lacks);

}  // namespace forkscope::analyzer::integration
