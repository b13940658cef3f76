// Which Python packages a repository's distribution installs: the one package detection of forkscope,
// used by the planner (what a plan's import step imports) and by the analysis (the validation path of
// the Markdown report). Pure: it reads only the paths and texts it is given; any thread.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace forkscope::analyzer {

// A path of the tree and a reader of a root file's text ("" when absent). The reader is asked only for
// "setup.py" and "pyproject.toml".
using RootFileReader = std::function<std::string(const std::string& path)>;

// The import names of the distribution's top-level packages, the one to import first first:
// 1. the packages setup.py (`packages=[...]`, `find_packages(include=..., exclude=...)`, `name=`) or
//    pyproject.toml (`[tool.setuptools] packages`, `[tool.setuptools.packages.find]` include/exclude,
//    `[project] name`) declare, where the tree has their `__init__.py`;
// 2. else the top-level directories (also under src/ and python/) holding an `__init__.py` that are not
//    tests, docs, examples, benchmarks or tooling — the distribution's name first when one matches.
// Empty when the tree has no package. paths are every file path of the tree (or at least every
// `__init__.py`); directories without `__init__.py` are never packages (a `paddle_test/` of scripts).
std::vector<std::string> DetectPythonPackages(const std::vector<std::string>& paths, const RootFileReader& read);

// Whether a top-level directory name names tests or tooling rather than a package (tests, test_x,
// x_test, x_tests, docs, examples, benchmarks, scripts, tools, ci, csrc, build, third_party, ...).
bool IsNonPackageDirectory(const std::string& name);

}  // namespace forkscope::analyzer
