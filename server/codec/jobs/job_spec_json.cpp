#include "server/codec/jobs/job_spec_json.h"

#include "base/text.h"

namespace forkscope::server {

using nlohmann::json;

namespace {

json EnvToJson(const EnvList& env) {
  json out = json::object();
  for (const auto& [k, v] : env) out[k] = v;
  return out;
}

EnvList EnvFromJson(const json& j) {
  EnvList env;
  if (j.is_object())
    for (const auto& item : j.items())
      if (item.value().is_string()) env.emplace_back(item.key(), item.value().get<std::string>());
  return env;
}

}  // namespace

json RecipeToJson(const Recipe& r) {
  json stages = json::array();
  for (const auto& s : r.stages) {
    json j{{"name", s.name},
           {"run", s.run},
           {"env", EnvToJson(s.env)},
           {"workdir", s.workdir},
           {"timeout_s", s.timeout_s},
           {"gpu", s.gpu},
           {"min_cuda", s.min_cuda},
           {"gpus", s.gpus},
           {"slurm_args", s.slurm_args}};
    if (s.name == "compare") {
      j.update({{"reference", s.reference},
                {"migrated", s.migrated},
                {"reference_trace", s.reference_trace},
                {"migrated_trace", s.migrated_trace},
                {"atol", s.atol},
                {"rtol", s.rtol}});
    }
    if (s.name == "kernels") {
      const KernelUnitsSpec& u = s.kernels;
      j["kernels"] = {{"compiler", u.compiler},
                      {"arch", u.arch},
                      {"arch_specific", u.arch_specific},
                      {"flags", u.flags},
                      {"include", u.include},
                      {"units", u.units},
                      {"exclude", u.exclude},
                      {"extensions", u.extensions},
                      {"jobs", u.jobs}};
    }
    stages.push_back(std::move(j));
  }
  return json{{"name", r.name},          {"description", r.description}, {"origin", r.origin},
              {"env", EnvToJson(r.env)}, {"submodules", r.submodules},   {"stages", stages}};
}

Result<Recipe> RecipeFromJson(const json& doc) {
  if (!doc.is_object() || !doc.contains("stages") || !doc["stages"].is_array())
    return InvalidArgument("stored recipe is not a recipe object");
  Recipe r;
  r.name = doc.value("name", "");
  r.description = doc.value("description", "");
  r.origin = doc.value("origin", "");
  r.env = EnvFromJson(doc.value("env", json::object()));
  r.submodules = doc.value("submodules", true);  // jobs stored before the key existed had none to skip
  for (const auto& j : doc["stages"]) {
    StageSpec s;
    s.name = j.value("name", "");
    s.run = j.value("run", "");
    s.env = EnvFromJson(j.value("env", json::object()));
    s.workdir = j.value("workdir", "");
    s.timeout_s = j.value("timeout_s", 3600);
    s.gpu = j.value("gpu", false);
    s.min_cuda = j.value("min_cuda", "");
    s.gpus = j.value("gpus", 0);
    s.slurm_args = j.value("slurm_args", std::vector<std::string>{});
    s.reference = j.value("reference", "");
    s.migrated = j.value("migrated", "");
    s.reference_trace = j.value("reference_trace", "");
    s.migrated_trace = j.value("migrated_trace", "");
    s.atol = j.value("atol", 1e-8);
    s.rtol = j.value("rtol", 1e-5);
    if (const json k = j.value("kernels", json::object()); !k.empty()) {
      using Strings = std::vector<std::string>;
      KernelUnitsSpec& u = s.kernels;
      u.compiler = k.value("compiler", u.compiler);
      u.arch = k.value("arch", u.arch);
      u.arch_specific = k.value("arch_specific", false);
      u.flags = k.value("flags", Strings{});
      u.include = k.value("include", Strings{});
      u.units = k.value("units", Strings{});
      u.exclude = k.value("exclude", Strings{});
      u.extensions = k.value("extensions", u.extensions);
      u.jobs = k.value("jobs", 0);
    }
    r.stages.push_back(std::move(s));
  }
  return r;
}

json RunnerToJson(const RunnerInfo& r) {
  json gpus = json::array();
  for (const auto& g : r.gpus)
    gpus.push_back(
        {{"index", g.index}, {"name", g.name}, {"memory_mb", g.memory_mb}, {"driver", g.driver}, {"cuda", g.cuda}});
  return json{{"name", r.name},
              {"executor", r.executor},
              {"gpus", gpus},
              {"cuda", r.cuda},
              {"driver", r.driver},
              {"available", r.available},
              {"detail", base::ValidUtf8(r.detail)}};
}

}  // namespace forkscope::server
