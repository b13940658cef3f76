// Internal to the planner (analyzer/planner*.cpp): file roles, package and validation inference,
// similar-fork ranking. Not part of the analyzer's interface.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analyzer/planner/planner.h"

namespace forkscope::analyzer::planner {

// What a file is to a migration, by its path.
enum class FileRole {
  kBuildEntry,     // setup.py, setup_*.py, build_backend.py
  kDependency,     // pyproject.toml, setup.cfg, requirements*.txt, environment*.yml
  kCMake,          // CMakeLists.txt, *.cmake
  kCi,             // .github/workflows/*.yml
  kTestScript,     // tests/, test/, examples/, benchmarks/, test_*.py, *_test.py, conftest.py
  kPackagePython,  // any other .py
  kCxx,            // C++ and CUDA sources and headers
  kSkip,           // vendored code, docs and everything else
};
FileRole RoleOf(std::string_view path);

// The Python package the import step should import ("" when none is found).
std::string InferPackage(const std::vector<SourceFile>& files);
// build -> import -> smoke, from what the repository holds.
std::vector<ValidationStep> InferValidation(const std::vector<SourceFile>& files, const std::string& package);

// Fills plan.similar (at most two forks, ranked on the first-round touchpoints), moves an if-needed
// touchpoint to the first round when any fork that similar (score >= 0.5) used its pattern, gives each
// touchpoint its worked examples (uses at a line >= 1 only: one that exists) and adds to its `why` what
// the migrated forks did.
void RankSimilarForks(const Experience& experience, MigrationPlan& plan);

}  // namespace forkscope::analyzer::planner
