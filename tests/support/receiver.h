// A real webhook receiver for tests: a cpp-httplib server on 127.0.0.1 that records every POST (path,
// headers, body) and answers with the status the test sets. It can be stopped and started again on
// the same port, to play a receiver that is down. Thread-safe.
#pragma once

#include <httplib.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/wait.h"

namespace forkscope::testing {

struct ReceivedHook {
  std::string path;
  std::string delivery_id;  // X-Forkscope-Delivery
  std::string event;        // X-Forkscope-Event
  std::string signature;    // X-Forkscope-Signature-256
  std::string content_type;
  std::string body;
  int answered = 0;  // the status it was answered with
};

class Receiver {
 public:
  Receiver() = default;
  ~Receiver() { Stop(); }
  Receiver(const Receiver&) = delete;
  Receiver& operator=(const Receiver&) = delete;

  // Listens on port (0 = any free port); returns the port.
  int Start(int port = 0) {
    Stop();
    server_ = std::make_unique<httplib::Server>();
    server_->Post(".*", [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mu_);
      res.status = status_;
      received_.push_back({req.path, req.get_header_value("X-Forkscope-Delivery"),
                           req.get_header_value("X-Forkscope-Event"), req.get_header_value("X-Forkscope-Signature-256"),
                           req.get_header_value("Content-Type"), req.body, status_});
    });
    port_ = port == 0 ? server_->bind_to_any_port("127.0.0.1") : (server_->bind_to_port("127.0.0.1", port) ? port : -1);
    REQUIRE(port_ > 0);
    thread_ = std::thread([server = server_.get()] { server->listen_after_bind(); });
    // stop() before the accept loop runs would be lost: wait until it runs.
    PollUntil([this] { return server_->is_running(); }, std::chrono::seconds(5), std::chrono::milliseconds(1));
    REQUIRE(server_->is_running());
    return port_;
  }

  void Stop() {
    if (!server_) return;
    server_->stop();
    if (thread_.joinable()) thread_.join();
    server_.reset();
  }

  void SetStatus(int status) {
    std::lock_guard<std::mutex> lock(mu_);
    status_ = status;
  }

  std::vector<ReceivedHook> Received() const {
    std::lock_guard<std::mutex> lock(mu_);
    return received_;
  }

  // Requests per delivery id that were answered with a 2xx.
  std::map<std::string, int> AcknowledgedById() const {
    std::map<std::string, int> out;
    for (const auto& r : Received())
      if (r.answered >= 200 && r.answered < 300) ++out[r.delivery_id];
    return out;
  }

  int port() const { return port_; }
  std::string Url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + path; }

 private:
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
  mutable std::mutex mu_;
  int status_ = 200;
  std::vector<ReceivedHook> received_;
};

}  // namespace forkscope::testing
