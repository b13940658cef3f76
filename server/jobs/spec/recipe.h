// A build-job recipe as a value: its stages and what each needs (docs/jobs.md). Parsed from the admin's
// TOML by server/jobs/job_recipe.h, kept in each job row as JSON (server/codec/jobs/job_spec_json.h).
// Plain values; thread-safe to share.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace forkscope::server {

using EnvList = std::vector<std::pair<std::string, std::string>>;

// The stage names a recipe may use, in the order they run.
inline constexpr const char* kStageOrder[] = {"kernels", "build", "import", "smoke", "compare"};

// The kernels stage: forkscope compiles the fork's kernel-layer translation units one by one for the
// runner's GPU architecture, without the framework and without linking (docs/jobs.md, "The kernels
// stage"). Paths are relative to the work tree.
struct KernelUnitsSpec {
  std::string compiler = "nvcc";  // looked up on the runner's PATH
  // "auto": sm_XY of the runner's GPU (the stage needs a GPU runner); "sm_90a", "sm_80": that one;
  // "" passes no -arch (a host compiler).
  std::string arch = "auto";
  bool arch_specific = false;                  // auto only: sm_XYa (Hopper's wgmma and TMA need sm_90a)
  std::vector<std::string> flags;              // after the -arch and -I flags
  std::vector<std::string> include;            // -I directories
  std::vector<std::string> units;              // globs; empty: the kernel-layer units the build lists
  std::vector<std::string> exclude;            // globs taken out of the selection
  std::vector<std::string> extensions{".cu"};  // what counts as a translation unit when units is empty
  int jobs = 0;                                // compilers at once; 0 = the runner's CPU count
};

struct StageSpec {
  std::string name;                     // one of kStageOrder
  std::string run;                      // shell command line (/bin/sh -c); compare: optional, runs first
  EnvList env;                          // added to the recipe's env
  std::string workdir;                  // relative to the work tree; "" = its root; no "..", not absolute
  int timeout_s = 3600;                 // 1..604800
  bool gpu = false;                     // needs a GPU runner (else the stage is skipped)
  std::string min_cuda;                 // "12.4": needs a runner with at least this CUDA; "" = any
  int gpus = 0;                         // GPUs needed; gpu = true with gpus = 0 means 1
  std::vector<std::string> slurm_args;  // extra sbatch arguments for this stage
  // compare only: two commands that each write a JSONL trace to $FORKSCOPE_TRACE (or to the paths
  // below, relative to workdir), diffed by forkscope with atol/rtol as defaults.
  std::string reference;
  std::string migrated;
  std::string reference_trace;
  std::string migrated_trace;
  double atol = 1e-8;
  double rtol = 1e-5;
  KernelUnitsSpec kernels;  // kernels only; `run`, when given, runs first (code generation)
};

struct Recipe {
  std::string name;  // `name = ...`, else the file stem
  std::string description;
  std::string origin;  // the file it came from
  EnvList env;         // for every stage
  // Check out the commit's git submodules at their recorded revisions (recursively, each mirrored
  // under the data directory like any repository). false: submodule directories stay empty.
  bool submodules = true;
  std::vector<StageSpec> stages;  // in kStageOrder order; at least one
};

}  // namespace forkscope::server
