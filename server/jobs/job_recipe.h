// Build-job recipes: the admin-configured commands that take a fork commit through build, import,
// smoke and compare (docs/jobs.md). Parsed from TOML files named by the configuration only — never
// from a repository — and snapshotted as JSON into each job (server/codec/jobs/). The types are in
// server/jobs/spec/recipe.h. Plain values; thread-safe to share.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "server/jobs/spec/recipe.h"

namespace forkscope::server {

// GPUs a stage needs (0 = none).
int NeededGpus(const StageSpec& stage);

// Parses a recipe; errors name origin and key ("gpu.toml: stages.smoke.timeout_s: must be ...").
Result<Recipe> ParseRecipe(const std::string& toml_text, const std::string& origin, const std::string& default_name);
// Reads a recipe file; its stem is the default name.
Result<Recipe> LoadRecipeFile(const std::string& path);

// Compares dotted version numbers ("12.4" < "12.10"); -1, 0 or 1. Missing parts count as 0.
int CompareVersions(const std::string& a, const std::string& b);

// The recipes an admin configured: every *.toml of jobs.recipe_dir plus each forks[].recipe file.
class RecipeCatalog {
 public:
  // Loads and validates them all; the first bad file is the error. Two files with one name are refused.
  static Result<RecipeCatalog> Load(const std::string& recipe_dir,
                                    const std::vector<std::pair<std::string, std::string>>& fork_recipes);
  // NotFound naming the known recipes.
  Result<Recipe> Find(const std::string& name) const;
  // The recipe configured for a fork; NotFound when it has none.
  Result<Recipe> ForFork(const std::string& fork) const;
  std::vector<std::string> Names() const;

 private:
  std::map<std::string, Recipe> by_name_;
  std::map<std::string, std::string> fork_recipe_;  // fork name -> recipe name
};

}  // namespace forkscope::server
