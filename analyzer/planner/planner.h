// The migration planner: scans a PyTorch custom-op library that has no Paddle fork yet (a snapshot of
// its files) and produces the guide's four outputs — the migration plan (touchpoints: build files,
// entry and test scripts, torch.ops/library/_dynamo/profiler call sites, device/stream/distributed/
// DLPack glue, C++ stream access and APIs others had to bridge, each with file, line, layer, reason and
// pattern, whether it is changed first or only if needed, and why), the minimal change boundary (kernels, schemas,
// registrations, layout to keep), the validation path (build, import and smoke commands inferred from the repository,
// also as a job recipe) and the compat-gap strategy (C++ APIs used here that migrated forks bridged, with those forks).
// The one or two most similar migrated forks are ranked and their pattern occurrences cited as worked examples. Pure:
// what migrated forks did comes in as values (storage builds them); thread-safe.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "analyzer/classify/rules.h"
#include "analyzer/model/experience.h"
#include "analyzer/model/model.h"

namespace forkscope::analyzer {

// One text file of the repository to plan for.
struct SourceFile {
  std::string path;
  std::string text;
};

struct WorkedExample {
  std::string fork;
  std::string pattern;
  std::string path;
  int line = 0;
  int64_t analysis_id = 0;
};

// When a touchpoint is changed: in the first round (the build, entry points, APIs other forks had to
// bridge), or only if the build, import or a test shows the compat layer does not cover it (C++
// stream access, torch.ops call sites, device glue) — unless a similar migrated fork changed the same.
enum class TouchpointWhen { kFirst, kIfNeeded };
const char* TouchpointWhenName(TouchpointWhen when);  // "first", "if-needed"

struct Touchpoint {
  std::string path;
  int line = 0;  // >= 1
  Layer layer = Layer::kOther;
  std::string reason;                   // what to do there
  std::string pattern;                  // the named pattern the change usually takes; "" when none
  std::vector<WorkedExample> examples;  // the same pattern in the most similar forks (line >= 1)
  TouchpointWhen when = TouchpointWhen::kFirst;
  std::string why;  // the evidence: the line that matched, what migrated forks did
};

struct KeepItem {
  std::string path;
  Layer layer = Layer::kOther;
  std::string reason;
  bool whole_file = true;  // false: the file also has touchpoints; everything else in it stays
};

struct ValidationStep {
  std::string stage;  // "build", "import", "smoke"
  std::string run;    // shell command line, run at the repository root
  std::string why;    // what it was inferred from
  bool gpu = false;   // needs a GPU runner
};

struct GapUse {
  std::string path;
  int line = 0;
};

struct GapStrategy {
  std::string api;  // as this library spells it
  std::string api_key;
  std::vector<GapUse> uses;
  std::vector<std::string> forks;  // forks that bridged it
  int occurrences = 0;             // bridges seen across those forks
  std::vector<std::string> bridges;
  std::vector<std::string> issues;
};

struct SimilarFork {
  std::string fork;
  double score = 0;               // mean of the two below
  double layer_similarity = 0;    // cosine of files-per-layer profiles
  double pattern_similarity = 0;  // Jaccard of the named patterns expected here and used there
  std::vector<WorkedExample> examples;
};

struct MigrationPlan {
  RefInfo upstream;
  std::string package;  // the Python package to import ("" when none was found)
  std::vector<Touchpoint> touchpoints;
  std::vector<KeepItem> keep;
  std::vector<ValidationStep> validation;
  std::vector<GapStrategy> gaps;
  std::vector<SimilarFork> similar;
  std::vector<std::string> notes;
};

// Plans the migration of the library whose files are given (paths relative to its root).
MigrationPlan PlanMigration(const Rules& rules, const std::vector<SourceFile>& files, const Experience& experience);

// The plan as JSON (docs/planner.md), Markdown for people, and its validation path as a job recipe
// (TOML: [stages.build] run = ..., then import and smoke).
nlohmann::json PlanToJson(const MigrationPlan& plan);
std::string PlanToMarkdown(const MigrationPlan& plan);
std::string PlanRecipeToml(const MigrationPlan& plan);

}  // namespace forkscope::analyzer
