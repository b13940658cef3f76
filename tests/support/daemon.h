// Runs the real `forkscope serve` binary on 127.0.0.1:0 against a temporary data directory and
// talks to it with cpp-httplib's client. Every response can be checked against docs/openapi.yaml.
#pragma once

#include <httplib.h>
#include <sys/types.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace forkscope::testing {

struct DaemonOptions {
  std::string binary;  // path of the forkscope binary
  std::string data_dir;
  std::vector<std::string> extra_args;  // e.g. {"--allow-local-repos"}
  std::string admin_token = "admin-secret";
};

class Daemon {
 public:
  explicit Daemon(DaemonOptions options);  // starts it and waits until it listens (REQUIREs)
  ~Daemon();                               // SIGKILL if still running
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;

  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  std::unique_ptr<httplib::Client> Client() const;
  // Sends SIGTERM and waits; returns the exit status.
  int Terminate();
  void Kill();
  const std::string& log_path() const { return log_; }

 private:
  DaemonOptions options_;
  pid_t pid_ = -1;
  int port_ = 0;
  std::string log_;
};

// Result of one request, with the OpenAPI check done.
struct ApiResponse {
  int status = 0;
  std::string body;
  std::string content_type;
  std::string openapi_error;  // "" when the response conforms
};

// Issues method on path (the template names the documented path for the OpenAPI check).
ApiResponse Call(httplib::Client& client, const std::string& method, const std::string& path,
                 const std::string& path_template, const std::string& body = "", const std::string& token = "",
                 const std::string& content_type = "application/json");

// Checks a response against docs/openapi.yaml (a Catch2 CHECK in the calling test).
#define CHECK_API(resp) CHECK((resp).openapi_error == "")

// The response body as JSON (a discarded value when it is not JSON).
nlohmann::json JsonBody(const ApiResponse& response);

// The value of one sample in /metrics text (name with its labels, as printed: `forkscope_heap_bytes{kind="free"}`);
// std::nullopt when the sample is absent.
std::optional<double> MetricValue(const std::string& metrics, const std::string& sample);

// GETs path until done(its JSON body) holds (REQUIREd within timeout), each response CHECKed against the
// OpenAPI description; returns the last body. For states another process reaches: a task, a job.
nlohmann::json GetJsonUntil(httplib::Client& client, const std::string& path, const std::string& path_template,
                            const std::function<bool(const nlohmann::json&)>& done,
                            std::chrono::milliseconds timeout = std::chrono::seconds(60));

// Whether a task's JSON says it has finished (succeeded, failed or cancelled).
bool TaskFinished(const nlohmann::json& task);

// GETs /api/v1/tasks/<id> (as GetJsonUntil) until the task has finished; returns its last JSON.
nlohmann::json GetTaskUntilFinished(httplib::Client& client, const std::string& id,
                                    std::chrono::milliseconds timeout = std::chrono::seconds(60));

// The CI check of a fork commit: POSTs body to /api/v1/check<query> (query "" or "?format=...&fail_on=..."),
// REQUIREs its 202 with a task and a result URL, and asks that URL until the task has finished (30 s at
// most); returns that last answer (200 with the verdict, or the task's error).
ApiResponse CheckCommit(httplib::Client& client, const std::string& query, const std::string& body,
                        const std::string& token);

}  // namespace forkscope::testing
