// A synthetic corpus for pattern mining, the compat-gap registry and the planner: four PyTorch
// custom-op libraries with different package names, directories and identifiers, each with a
// Paddle fork (branch "paddle") built as real git repositories. The forks share migration patterns
// with variations in names (asserted in tests/storage/pattern_store_test.cpp):
//   setup      all four: `import paddle; paddle.enable_compat()` before the cpp_extension import
//              (sparsekit adds a comment line, which normalisation drops)
//   tests      all four: scoped enable_compat before `import torch` in the op test; sparsekit and
//              tinymoe also in test_utils.py (a different insertion point, the same added lines)
//   requires   fastops, quickattn, sparsekit: pyproject build-system requires torch -> paddlepaddle-gpu
//              (sparsekit also adds ninja: a near match, not an exact one)
//   deps       fastops, quickattn, sparsekit: the project dependency torch -> paddlepaddle-gpu
//   bridge     fastops, sparsekit: record_stream bridged through _PD_GetInner (other variable names;
//              fastops states Remove-When, sparsekit does not)
//   stream     quickattn, tinymoe: torch.cuda.current_stream -> paddle.device.current_stream
// and fork-only changes: quickattn bridges the kernel's stream, sparsekit adds a module, tinymoe pins
// requirements.txt and fixes its kernel, fastops and quickattn add README banners.
#pragma once

#include <string>
#include <vector>

#include "analyzer/classify/rules.h"
#include "storage/store.h"
#include "tests/support/fixtures.h"

namespace forkscope::testing {

struct LibrarySpec {
  std::string pkg;                // Python package and fork name: "fastops"
  std::string op;                 // the op: "silu_and_mul"
  std::string csrc;               // C++ directory: "csrc"
  std::string bindings;           // pybind11 file in csrc: "bindings.cpp"
  std::string tests;              // test directory: "tests"
  std::string dst, src, stream;   // identifiers of the copy helper in the bindings
  bool requirements_txt = false;  // dependencies in requirements.txt instead of pyproject.toml
  bool ci_workflow = false;       // upstream has a CI workflow that installs torch
};

struct SyntheticPair {
  LibrarySpec spec;
  std::string upstream;  // path of the upstream repository (branch main)
  std::string fork;      // path of the fork (branch paddle, its HEAD)
};

// The four libraries, in a fixed order: fastops, quickattn, sparsekit, tinymoe.
std::vector<LibrarySpec> PatternCorpusSpecs();
// A fifth library with no fork ("flashnorm"), for planning.
LibrarySpec UnportedSpec();

// Builds an upstream repository for spec at path.
GitRepo BuildSyntheticUpstream(const LibrarySpec& spec, const std::string& path);
// Builds the four pairs under dir (dir/<pkg>-upstream, dir/<pkg>-paddle).
std::vector<SyntheticPair> BuildPatternCorpus(const std::string& dir);
// One more commit on quickattn's fork: it bridges record_stream too (with Remove-When) and drops
// its README banner.
void AdvanceQuickattn(const SyntheticPair& quickattn);

// Registers the pair's fork in store (as spec.pkg) if needed and syncs it like the daemon would
// (mirrors under data_dir); returns the analysis id.
int64_t SyncPair(storage::Store& store, const analyzer::Rules& rules, const SyntheticPair& pair,
                 const std::string& data_dir);

}  // namespace forkscope::testing
