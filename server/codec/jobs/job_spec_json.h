// The JSON forms of a recipe and a runner: what a job row keeps of the recipe it ran (read back by
// RecipeFromJson when the job resumes) and of the runner it ran on, and what GET /api/v1/runners
// answers (docs/openapi.yaml: Runner). Pure functions.
#pragma once

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "server/jobs/spec/recipe.h"
#include "server/jobs/spec/runner.h"

namespace forkscope::server {

nlohmann::json RecipeToJson(const Recipe& recipe);
// InvalidArgument when doc is not a recipe object; keys it lacks keep their defaults (older rows).
Result<Recipe> RecipeFromJson(const nlohmann::json& doc);
// The runner as the API and the job store show it.
nlohmann::json RunnerToJson(const RunnerInfo& runner);

}  // namespace forkscope::server
