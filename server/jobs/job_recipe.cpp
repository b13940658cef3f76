// Recipe parsing (toml++) and the catalog of configured recipes.
#include "server/jobs/job_recipe.h"

#include <toml++/toml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>

#include "server/config/config.h"

namespace forkscope::server {
namespace fs = std::filesystem;

namespace {

constexpr int kMaxTimeoutS = 7 * 24 * 3600;

// Reads typed keys of one table; errors name the key by its full path.
class Keys {
 public:
  Keys(const toml::table& t, std::string path) : t_(t), path_(std::move(path)) {}
  std::string Path(std::string_view key) const {
    return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  }

  Status Known(std::initializer_list<std::string_view> known) const {
    for (const auto& [key, node] : t_)
      if (std::find(known.begin(), known.end(), key.str()) == known.end())
        return InvalidArgument("unknown key '" + Path(key.str()) + "'");
    return Status::Ok();
  }
  bool Has(std::string_view key) const { return t_.get(key) != nullptr; }
  Status Str(std::string_view key, std::string& out) const {
    const toml::node* n = t_.get(key);
    if (!n) return Status::Ok();
    if (!n->is_string()) return InvalidArgument(Path(key) + ": expected a string");
    out = n->as_string()->get();
    return Status::Ok();
  }
  Status Bool(std::string_view key, bool& out) const {
    const toml::node* n = t_.get(key);
    if (!n) return Status::Ok();
    if (!n->is_boolean()) return InvalidArgument(Path(key) + ": expected a boolean");
    out = n->as_boolean()->get();
    return Status::Ok();
  }
  Status Int(std::string_view key, int64_t min, int64_t max, int& out) const {
    const toml::node* n = t_.get(key);
    if (!n) return Status::Ok();
    if (!n->is_integer()) return InvalidArgument(Path(key) + ": expected an integer");
    int64_t v = n->as_integer()->get();
    if (v < min || v > max)
      return InvalidArgument(Path(key) + ": must be between " + std::to_string(min) + " and " + std::to_string(max));
    out = static_cast<int>(v);
    return Status::Ok();
  }
  Status Number(std::string_view key, double& out) const {
    const toml::node* n = t_.get(key);
    if (!n) return Status::Ok();
    if (!n->is_number()) return InvalidArgument(Path(key) + ": expected a number");
    out = n->is_integer() ? static_cast<double>(n->as_integer()->get()) : n->as_floating_point()->get();
    if (out < 0) return InvalidArgument(Path(key) + ": must be >= 0");
    return Status::Ok();
  }
  Status Strings(std::string_view key, std::vector<std::string>& out) const {
    const toml::node* n = t_.get(key);
    if (!n) return Status::Ok();
    const toml::array* a = n->as_array();
    if (!a) return InvalidArgument(Path(key) + ": expected an array of strings");
    for (const auto& item : *a) {
      if (!item.is_string()) return InvalidArgument(Path(key) + ": expected an array of strings");
      out.push_back(item.as_string()->get());
    }
    return Status::Ok();
  }
  Status Env(std::string_view key, EnvList& out) const {
    const toml::node* n = t_.get(key);
    if (!n) return Status::Ok();
    if (!n->is_table()) return InvalidArgument(Path(key) + ": expected a table of strings");
    for (const auto& [name, value] : *n->as_table()) {
      std::string var(name.str());
      bool valid = !var.empty() && !std::isdigit(static_cast<unsigned char>(var[0])) &&
                   std::all_of(var.begin(), var.end(),
                               [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
      if (!valid) return InvalidArgument(Path(key) + "." + var + ": not a valid environment variable name");
      if (var.rfind("FORKSCOPE_", 0) == 0)
        return InvalidArgument(Path(key) + "." + var + ": FORKSCOPE_* names are reserved");
      if (!value.is_string()) return InvalidArgument(Path(key) + "." + var + ": expected a string");
      out.emplace_back(var, value.as_string()->get());
    }
    return Status::Ok();
  }

 private:
  const toml::table& t_;
  std::string path_;
};

Status CheckRelative(const std::string& key, const std::string& path) {
  if (path.empty()) return Status::Ok();
  if (path.front() == '/') return InvalidArgument(key + ": must be relative to the work tree");
  for (const auto& part : fs::path(path))
    if (part == "..") return InvalidArgument(key + ": must not contain '..'");
  return Status::Ok();
}

Status CheckRelativeAll(const Keys& k, std::string_view key, const std::vector<std::string>& paths) {
  for (const auto& p : paths) FS_RETURN_IF_ERROR(CheckRelative(k.Path(key), p));
  return Status::Ok();
}

// The kernels stage's own keys.
Status ReadKernels(const Keys& k, StageSpec& s) {
  KernelUnitsSpec& u = s.kernels;
  FS_RETURN_IF_ERROR(k.Str("compiler", u.compiler));
  if (u.compiler.empty()) return InvalidArgument(k.Path("compiler") + ": must not be empty");
  FS_RETURN_IF_ERROR(k.Str("arch", u.arch));
  const bool arch_ok = u.arch.empty() || u.arch == "auto" ||
                       (u.arch.rfind("sm_", 0) == 0 && u.arch.size() > 3 &&
                        u.arch.find_first_not_of("0123456789abf", 3) == std::string::npos);
  if (!arch_ok) return InvalidArgument(k.Path("arch") + ": expected \"auto\", \"\" or an architecture like \"sm_90a\"");
  FS_RETURN_IF_ERROR(k.Bool("arch_specific", u.arch_specific));
  FS_RETURN_IF_ERROR(k.Strings("flags", u.flags));
  FS_RETURN_IF_ERROR(k.Strings("include", u.include));
  FS_RETURN_IF_ERROR(k.Strings("units", u.units));
  FS_RETURN_IF_ERROR(k.Strings("exclude", u.exclude));
  if (k.Has("extensions")) {
    u.extensions.clear();
    FS_RETURN_IF_ERROR(k.Strings("extensions", u.extensions));
  }
  for (const auto& e : u.extensions)
    if (e.size() < 2 || e.front() != '.')
      return InvalidArgument(k.Path("extensions") + ": expected names like \".cu\"");
  FS_RETURN_IF_ERROR(CheckRelativeAll(k, "include", u.include));
  FS_RETURN_IF_ERROR(CheckRelativeAll(k, "units", u.units));
  FS_RETURN_IF_ERROR(k.Int("jobs", 0, 1024, u.jobs));
  if (u.arch == "auto") s.gpu = true;  // the architecture is the runner's GPU's
  return Status::Ok();
}

Result<StageSpec> ReadStage(const toml::table& t, const std::string& name) {
  Keys k(t, "stages." + name);
  bool compare = name == "compare";
  bool kernels = name == "kernels";
  if (compare) {
    FS_RETURN_IF_ERROR(k.Known({"run", "env", "workdir", "timeout_s", "gpu", "min_cuda", "gpus", "slurm_args",
                                "reference", "migrated", "reference_trace", "migrated_trace", "atol", "rtol"}));
  } else if (kernels) {
    FS_RETURN_IF_ERROR(
        k.Known({"run", "env", "workdir", "timeout_s", "gpu", "min_cuda", "gpus", "slurm_args", "compiler", "arch",
                 "arch_specific", "flags", "include", "units", "exclude", "extensions", "jobs"}));
  } else {
    FS_RETURN_IF_ERROR(k.Known({"run", "env", "workdir", "timeout_s", "gpu", "min_cuda", "gpus", "slurm_args"}));
  }
  StageSpec s;
  s.name = name;
  FS_RETURN_IF_ERROR(k.Str("run", s.run));
  FS_RETURN_IF_ERROR(k.Env("env", s.env));
  FS_RETURN_IF_ERROR(k.Str("workdir", s.workdir));
  FS_RETURN_IF_ERROR(CheckRelative(k.Path("workdir"), s.workdir));
  FS_RETURN_IF_ERROR(k.Int("timeout_s", 1, kMaxTimeoutS, s.timeout_s));
  FS_RETURN_IF_ERROR(k.Bool("gpu", s.gpu));
  FS_RETURN_IF_ERROR(k.Str("min_cuda", s.min_cuda));
  if (!s.min_cuda.empty() && s.min_cuda.find_first_not_of("0123456789.") != std::string::npos)
    return InvalidArgument(k.Path("min_cuda") + ": expected a version like \"12.4\"");
  FS_RETURN_IF_ERROR(k.Int("gpus", 0, 64, s.gpus));
  if (s.gpus > 0) s.gpu = true;
  FS_RETURN_IF_ERROR(k.Strings("slurm_args", s.slurm_args));
  if (compare) {
    FS_RETURN_IF_ERROR(k.Str("reference", s.reference));
    FS_RETURN_IF_ERROR(k.Str("migrated", s.migrated));
    FS_RETURN_IF_ERROR(k.Str("reference_trace", s.reference_trace));
    FS_RETURN_IF_ERROR(k.Str("migrated_trace", s.migrated_trace));
    FS_RETURN_IF_ERROR(CheckRelative(k.Path("reference_trace"), s.reference_trace));
    FS_RETURN_IF_ERROR(CheckRelative(k.Path("migrated_trace"), s.migrated_trace));
    FS_RETURN_IF_ERROR(k.Number("atol", s.atol));
    FS_RETURN_IF_ERROR(k.Number("rtol", s.rtol));
    if (s.reference.empty() || s.migrated.empty())
      return InvalidArgument("stages.compare: needs both 'reference' and 'migrated' commands");
  } else if (kernels) {
    FS_RETURN_IF_ERROR(ReadKernels(k, s));
  } else if (s.run.empty()) {
    return InvalidArgument(k.Path("run") + ": missing (the stage's command line)");
  }
  return s;
}

Result<toml::table> ParseTomlTable(const std::string& text, const std::string& origin) {
  FS_RETURN_IF_ERROR(CheckTomlText(text, origin));
#if TOML_EXCEPTIONS
  try {
    return toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    return InvalidArgument(origin + ":" + std::to_string(e.source().begin.line) + ":" +
                           std::to_string(e.source().begin.column) + ": " + std::string(e.description()));
  }
#else
  toml::parse_result parsed = toml::parse(text, origin);
  if (!parsed)
    return InvalidArgument(origin + ":" + std::to_string(parsed.error().source().begin.line) + ": " +
                           std::string(parsed.error().description()));
  return std::move(parsed).table();
#endif
}

Result<Recipe> ReadRecipe(const toml::table& root, const std::string& origin, const std::string& default_name) {
  Keys k(root, "");
  FS_RETURN_IF_ERROR(k.Known({"name", "description", "env", "submodules", "stages"}));
  Recipe r;
  r.origin = origin;
  r.name = default_name;
  FS_RETURN_IF_ERROR(k.Str("name", r.name));
  if (std::string why = ForkNameProblem(r.name); !why.empty()) return InvalidArgument("name: '" + r.name + "' " + why);
  FS_RETURN_IF_ERROR(k.Str("description", r.description));
  FS_RETURN_IF_ERROR(k.Env("env", r.env));
  FS_RETURN_IF_ERROR(k.Bool("submodules", r.submodules));
  const toml::node* stages = root.get("stages");
  if (!stages || !stages->is_table() || stages->as_table()->empty())
    return InvalidArgument(
        "stages: a recipe needs at least one of [stages.kernels], [stages.build], [stages.import], "
        "[stages.smoke], [stages.compare]");
  for (const auto& [key, node] : *stages->as_table()) {
    std::string name(key.str());
    if (std::find(std::begin(kStageOrder), std::end(kStageOrder), name) == std::end(kStageOrder))
      return InvalidArgument("stages." + name + ": unknown stage (expected kernels, build, import, smoke or compare)");
    if (!node.is_table()) return InvalidArgument("stages." + name + ": expected a table");
  }
  for (const char* name : kStageOrder) {
    const toml::node* node = stages->as_table()->get(name);
    if (!node) continue;
    FS_ASSIGN_OR_RETURN(StageSpec s, ReadStage(*node->as_table(), name));
    r.stages.push_back(std::move(s));
  }
  return r;
}

}  // namespace

int NeededGpus(const StageSpec& stage) { return stage.gpus > 0 ? stage.gpus : stage.gpu ? 1 : 0; }

Result<Recipe> ParseRecipe(const std::string& toml_text, const std::string& origin, const std::string& default_name) {
  FS_ASSIGN_OR_RETURN(toml::table root, ParseTomlTable(toml_text, origin));
  auto recipe = ReadRecipe(root, origin, default_name);
  if (!recipe.ok()) return Status(recipe.status().code(), origin + ": " + recipe.status().message());
  return recipe;
}

Result<Recipe> LoadRecipeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound(path + ": cannot read recipe");
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseRecipe(ss.str(), path, fs::path(path).stem().string());
}

int CompareVersions(const std::string& a, const std::string& b) {
  std::istringstream sa(a), sb(b);
  while (sa.good() || sb.good()) {
    std::string pa, pb;
    if (sa.good()) std::getline(sa, pa, '.');
    if (sb.good()) std::getline(sb, pb, '.');
    long va = pa.empty() ? 0 : std::strtol(pa.c_str(), nullptr, 10);
    long vb = pb.empty() ? 0 : std::strtol(pb.c_str(), nullptr, 10);
    if (va != vb) return va < vb ? -1 : 1;
  }
  return 0;
}

Result<RecipeCatalog> RecipeCatalog::Load(const std::string& recipe_dir,
                                          const std::vector<std::pair<std::string, std::string>>& fork_recipes) {
  RecipeCatalog catalog;
  auto add = [&catalog](Recipe recipe) -> Status {
    auto [it, inserted] = catalog.by_name_.emplace(recipe.name, recipe);
    if (!inserted && it->second.origin != recipe.origin)
      return AlreadyExists("recipe '" + recipe.name + "' is defined by both " + it->second.origin + " and " +
                           recipe.origin);
    return Status::Ok();
  };
  if (!recipe_dir.empty()) {
    std::error_code ec;
    std::vector<std::string> files;
    for (const auto& entry : fs::directory_iterator(recipe_dir, ec))
      if (entry.path().extension() == ".toml") files.push_back(entry.path().string());
    if (ec) return NotFound("jobs.recipe_dir " + recipe_dir + ": " + ec.message());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      FS_ASSIGN_OR_RETURN(Recipe r, LoadRecipeFile(f));
      FS_RETURN_IF_ERROR(add(std::move(r)));
    }
  }
  for (const auto& [fork, path] : fork_recipes) {
    FS_ASSIGN_OR_RETURN(Recipe r, LoadRecipeFile(path));
    catalog.fork_recipe_[fork] = r.name;
    FS_RETURN_IF_ERROR(add(std::move(r)));
  }
  return catalog;
}

Result<Recipe> RecipeCatalog::Find(const std::string& name) const {
  auto it = by_name_.find(name);
  if (it != by_name_.end()) return it->second;
  std::string known;
  for (const auto& n : Names()) known += (known.empty() ? "" : ", ") + n;
  return NotFound("no recipe '" + name + "' is configured (known: " + (known.empty() ? "none" : known) + ")");
}

Result<Recipe> RecipeCatalog::ForFork(const std::string& fork) const {
  auto it = fork_recipe_.find(fork);
  if (it == fork_recipe_.end())
    return NotFound("fork '" + fork +
                    "' has no recipe: set forks[].recipe in the configuration or name one "
                    "in the request's 'recipe'");
  return Find(it->second);
}

std::vector<std::string> RecipeCatalog::Names() const {
  std::vector<std::string> names;
  for (const auto& [n, r] : by_name_) names.push_back(n);
  return names;
}

}  // namespace forkscope::server
