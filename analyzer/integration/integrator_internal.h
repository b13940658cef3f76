// Internal to analyzer/integration: an integrator's files once parsed, and the judgement of each
// library (integrator_library.cpp).
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/integration/integrator.h"
#include "analyzer/integration/integrator_files.h"

namespace forkscope::analyzer::integration {

struct EcosystemLib {
  std::string name;
  std::string source_rel_path;
  std::vector<std::pair<std::string, std::string>> artifacts;  // (source in the install dir, target name)
  int line = 0;
  std::string condition;  // the if-test it is appended under ("" = always)
};

struct IntegratorFiles {
  IntegratorLayout layout;
  std::vector<SubmoduleEntry> submodules;
  std::vector<std::pair<std::string, std::vector<std::string>>> gitignores;  // (path, patterns)
  bool has_get_libs = false;
  std::vector<EcosystemLib> libraries;
  bool has_submodule_check = false;
  std::set<std::string> submodule_check_strings;
  std::vector<LoaderBlock> loads;
  std::set<std::string> test_imports;  // modules, and module.name of from-imports
  std::vector<std::string> multi_card_cases;
};

struct SubmoduleView {
  std::string path;
  std::string pinned_sha;                 // "" when .gitmodules names it but the tree has no gitlink
  const SubmoduleEntry* entry = nullptr;  // nullptr when the gitlink has no .gitmodules entry
};

// A submodule: its fork (marking it in matched), pin state, steps, loader and what is missing.
LibraryReport JudgeSubmodule(const IntegratorSource& source, const SubmoduleView& view, const IntegratorFiles& files,
                             const std::vector<RegisteredFork>& forks, std::vector<bool>& matched);
// A registered fork the integrator has no submodule for: every step to add.
LibraryReport JudgeReadiness(const RegisteredFork& fork, const IntegratorFiles& files,
                             const std::vector<RegisteredFork>& forks);

}  // namespace forkscope::analyzer::integration
