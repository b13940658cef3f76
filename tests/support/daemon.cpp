#include "tests/support/daemon.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <thread>

#include "tests/support/fixtures.h"
#include "tests/support/openapi.h"
#include "tests/support/wait.h"

namespace forkscope::testing {

Daemon::Daemon(DaemonOptions options) : options_(std::move(options)) {
  std::filesystem::create_directories(options_.data_dir);
  std::string port_file = options_.data_dir + "/port";
  std::filesystem::remove(port_file);
  log_ = options_.data_dir + "/daemon.log";
  std::vector<std::string> args = {options_.binary, "serve",           "--listen",    "127.0.0.1:0",
                                   "--data-dir",    options_.data_dir, "--port-file", port_file};
  args.insert(args.end(), options_.extra_args.begin(), options_.extra_args.end());
  pid_ = fork();
  REQUIRE(pid_ >= 0);
  if (pid_ == 0) {
    setenv("FORKSCOPE_ADMIN_TOKEN", options_.admin_token.c_str(), 1);
    FILE* log = freopen(log_.c_str(), "a", stderr);
    (void)log;
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  bool exited = false;
  PollUntil(
      [&] {
        std::string text = ReadFile(port_file);
        if (!text.empty() && text.back() == '\n') port_ = std::stoi(text);
        int st = 0;
        exited = waitpid(pid_, &st, WNOHANG) == pid_;
        return port_ != 0 || exited;
      },
      std::chrono::seconds(15));
  if (exited) {
    pid_ = -1;
    FAIL("daemon exited at start-up:\n" << ReadFile(log_));
  }
  INFO(ReadFile(log_));
  REQUIRE(port_ > 0);
}

Daemon::~Daemon() { Kill(); }

std::unique_ptr<httplib::Client> Daemon::Client() const {
  auto c = std::make_unique<httplib::Client>("127.0.0.1", port_);
  c->set_read_timeout(60, 0);
  return c;
}

int Daemon::Terminate() {
  if (pid_ < 0) return -1;
  kill(pid_, SIGTERM);
  int st = 0;
  waitpid(pid_, &st, 0);
  pid_ = -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

void Daemon::Kill() {
  if (pid_ < 0) return;
  kill(pid_, SIGKILL);
  int st = 0;
  waitpid(pid_, &st, 0);
  pid_ = -1;
}

ApiResponse Call(httplib::Client& client, const std::string& method, const std::string& path,
                 const std::string& path_template, const std::string& body, const std::string& token,
                 const std::string& content_type) {
  httplib::Headers headers;
  if (!token.empty()) headers.emplace("Authorization", "Bearer " + token);
  httplib::Result r{nullptr, httplib::Error::Unknown};
  if (method == "GET") r = client.Get(path.c_str(), headers);
  if (method == "POST") r = client.Post(path.c_str(), headers, body, content_type.c_str());
  if (method == "PATCH") r = client.Patch(path.c_str(), headers, body, content_type.c_str());
  if (method == "DELETE") r = client.Delete(path.c_str(), headers);
  INFO(method << " " << path);
  REQUIRE(r);
  ApiResponse out;
  out.status = r->status;
  out.body = r->body;
  out.content_type = r->get_header_value("Content-Type");
  out.openapi_error = OpenApi::Get().Check(method, path_template, out.status, out.content_type, out.body);
  return out;
}

nlohmann::json JsonBody(const ApiResponse& response) { return nlohmann::json::parse(response.body, nullptr, false); }

std::optional<double> MetricValue(const std::string& metrics, const std::string& sample) {
  const std::string line_start = sample + " ";
  for (size_t at = 0; at < metrics.size();) {
    const size_t end = std::min(metrics.find('\n', at), metrics.size());
    if (metrics.compare(at, line_start.size(), line_start) == 0)
      return std::stod(metrics.substr(at + line_start.size(), end - at - line_start.size()));
    at = end + 1;
  }
  return std::nullopt;
}

nlohmann::json GetJsonUntil(httplib::Client& client, const std::string& path, const std::string& path_template,
                            const std::function<bool(const nlohmann::json&)>& done, std::chrono::milliseconds timeout) {
  nlohmann::json body;
  const bool reached = PollUntil(
      [&] {
        const ApiResponse r = Call(client, "GET", path, path_template);
        CHECK_API(r);
        body = JsonBody(r);
        return done(body);
      },
      timeout);
  INFO("GET " << path << " last answered " << body.dump());
  REQUIRE(reached);
  return body;
}

bool TaskFinished(const nlohmann::json& task) {
  const std::string state = task.is_object() ? task.value("state", "") : "";
  return state == "succeeded" || state == "failed" || state == "cancelled";
}

nlohmann::json GetTaskUntilFinished(httplib::Client& client, const std::string& id, std::chrono::milliseconds timeout) {
  return GetJsonUntil(client, "/api/v1/tasks/" + id, "/api/v1/tasks/{id}", TaskFinished, timeout);
}

ApiResponse CheckCommit(httplib::Client& client, const std::string& query, const std::string& body,
                        const std::string& token) {
  ApiResponse queued = Call(client, "POST", "/api/v1/check" + query, "/api/v1/check", body, token);
  INFO(queued.body);
  REQUIRE(queued.status == 202);
  CHECK(queued.openapi_error == "");
  const nlohmann::json ticket = nlohmann::json::parse(queued.body, nullptr, false);
  REQUIRE(ticket.contains("result"));
  const std::string result = ticket["result"];
  CHECK(result.rfind("/api/v1/tasks/" + ticket["task"].get<std::string>() + "/check", 0) == 0);
  ApiResponse answer;
  const bool finished = PollUntil(
      [&] {
        answer = Call(client, "GET", result, "/api/v1/tasks/{id}/check", "", token);
        CHECK(answer.openapi_error == "");
        return answer.status != 202;
      },
      std::chrono::seconds(30));
  INFO(answer.body);
  REQUIRE(finished);
  return answer;
}

}  // namespace forkscope::testing
