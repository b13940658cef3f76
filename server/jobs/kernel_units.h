// The kernels stage (docs/jobs.md, "The kernels stage"): which translation units of a checked-out work
// tree are the fork's kernels, the shell script that compiles each of them for the runner's GPU
// architecture (run by the stage's executor like any stage, never by the daemon), and what the
// compilers said, read back into the stage's record. The selection only reads files.
#pragma once

#include <string>
#include <vector>

#include "analyzer/classify/rules.h"
#include "server/jobs/job_recipe.h"
#include "storage/job_store.h"

namespace forkscope::server {

struct KernelSelection {
  std::vector<std::string> units;  // paths relative to the work tree, sorted
  // How they were chosen: "recipe" (the recipe's units globs), "build" (kernel-layer units a build
  // file names), "kernel_layer" (every kernel-layer unit: no build file names one).
  std::string how;
  std::string note;  // one line for the stage log: what was looked at and why these
};

// The units the stage compiles. Submodule directories are never searched (their code is not the fork's),
// nor are symbolic links followed.
KernelSelection SelectKernelUnits(const std::string& tree, const KernelUnitsSpec& spec, const analyzer::Rules& rules);

// The stage's script: the recipe's `run` (if any), then every unit compiled on its own (spec.jobs at a
// time), each unit's exit status and milliseconds appended to <out_dir>/results.tsv and its compiler
// output kept in <out_dir>/<n>.log. Exits 0 when every unit compiled.
std::string KernelScript(const StageSpec& spec, const KernelSelection& selection, const std::string& tree,
                         const std::string& out_dir);

// After the stage: rec.result = {"arch", "how", "units": [{path, state, duration_ms, error}]}; when a
// unit failed, the stage fails with reason code stage.kernel_unit {unit, error, failed, total}; when
// there was nothing to compile, stage.no_kernel_units {note}. Paths in the errors are made relative to tree.
void ReadKernelResults(const KernelSelection& selection, const std::string& tree, const std::string& out_dir,
                       storage::StageRecord& rec);

// The first line of a compiler's output that states an error (nvcc, gcc and clang formats), else its
// last non-empty line; "" for no output.
std::string FirstCompilerError(const std::string& output);

}  // namespace forkscope::server
