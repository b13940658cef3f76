#include "server/codec/job_json.h"

#include "base/message_code.h"
#include "base/text.h"

#include <cstdio>

#include "server/jobs/job_runner.h"

namespace forkscope::server {

using nlohmann::json;

namespace {

json TimeOrNull(int64_t t) { return t ? json(t) : json(nullptr); }

json ParsedOr(const std::string& text, json fallback) {
  if (text.empty()) return fallback;
  json j = json::parse(text, nullptr, false);
  return j.is_discarded() ? fallback : j;
}

}  // namespace

json JobHeadToJson(const storage::JobRecord& job) {
  return json{{"id", job.id},
              {"state", storage::JobStateName(job.state)},
              {"created_at", job.created_at},
              {"finished_at", TimeOrNull(job.finished_at)}};
}

json JobToJson(const storage::JobRecord& job) {
  json stages = json::array();
  for (const auto& s : job.stages) {
    json j{{"name", s.name},
           {"state", storage::JobStateName(s.state)},
           {"exit_code", s.exit_code ? json(*s.exit_code) : json(nullptr)},
           {"duration_s", static_cast<double>(s.duration_ms) / 1000.0},
           {"log_tail", base::ValidUtf8(s.log_tail)},
           {"reason", base::ValidUtf8(s.reason)},
           {"started_at", TimeOrNull(s.started_at)},
           {"finished_at", TimeOrNull(s.finished_at)}};
    base::PutMessageCode(j, "reason", s.reason_code, s.reason_params);
    if (!s.handle.empty() && job.executor == "slurm") j["slurm_job_id"] = s.handle;
    if (!s.result.empty()) j[s.name == "kernels" ? "kernel_units" : "trace_diff"] = ParsedOr(s.result, nullptr);
    stages.push_back(std::move(j));
  }
  json out{{"id", job.id},
           {"fork", job.fork},
           {"state", storage::JobStateName(job.state)},
           {"reason", base::ValidUtf8(job.reason)},
           {"error", JobErrored(job)},
           {"sha", job.sha},
           {"executor", job.executor},
           {"recipe", job.recipe},
           {"runner", ParsedOr(job.runner, json::object())},
           {"stages", stages},
           {"created_at", job.created_at},
           {"started_at", TimeOrNull(job.started_at)},
           {"finished_at", TimeOrNull(job.finished_at)}};
  base::PutMessageCode(out, "reason", job.reason_code, job.reason_params);
  return out;
}

std::string RenderJobText(const storage::JobRecord& job) {
  json runner = ParsedOr(job.runner, json::object());
  std::string out = "job " + job.id + " " + storage::JobStateName(job.state) + " (" + job.executor + ", recipe " +
                    job.recipe + ", " + job.sha.substr(0, 12) + ")\n";
  if (runner.is_object() && runner.contains("name")) {
    out += "runner " + runner.value("name", "") + ": " + std::to_string(runner.value("gpus", json::array()).size()) +
           " GPU(s)";
    for (const auto& g : runner.value("gpus", json::array())) out += ", " + g.value("name", "");
    out += ", CUDA " + (runner.value("cuda", "").empty() ? std::string("none") : runner.value("cuda", "")) + "\n";
  }
  for (const auto& s : job.stages) {
    char line[256];
    std::snprintf(line, sizeof line, "  %-8s %-10s %7.1fs", s.name.c_str(), storage::JobStateName(s.state),
                  static_cast<double>(s.duration_ms) / 1000.0);
    out += line;
    if (s.exit_code) out += "  exit " + std::to_string(*s.exit_code);
    if (!s.reason.empty()) out += "  " + s.reason;
    out += "\n";
    if (s.name != "kernels" || s.result.empty()) continue;
    const json units = ParsedOr(s.result, json::object()).value("units", json::array());
    for (const auto& u : units) {
      const json ms = u.value("duration_ms", json());
      std::snprintf(line, sizeof line, "    %-8s %7.1fs  ", u.value("state", "").c_str(),
                    ms.is_number() ? ms.get<double>() / 1000.0 : 0.0);
      out += line + u.value("path", "");
      if (u.contains("error") && u["error"].is_string()) out += ": " + u["error"].get<std::string>();
      out += "\n";
    }
  }
  if (!job.reason.empty()) out += job.reason + "\n";
  return out;
}

}  // namespace forkscope::server
