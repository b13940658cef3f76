// A TCP server on 127.0.0.1 that accepts connections and never answers: a git fetch from it hangs until
// Close(), so a test catches a sync reliably in the middle of its fetch. Header-only; one accept thread.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace forkscope::testing {

class StallingServer {
 public:
  StallingServer() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    REQUIRE(fd_ >= 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    REQUIRE(::listen(fd_, 16) == 0);
    socklen_t len = sizeof addr;
    REQUIRE(::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] {
      while (true) {
        int c = ::accept(fd_, nullptr, nullptr);
        if (c < 0) return;  // Close() shut the listener down
        std::lock_guard<std::mutex> lock(mu_);
        clients_.push_back(c);
      }
    });
  }
  ~StallingServer() { Close(); }
  int port() const { return port_; }
  std::string Url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + path; }
  // Drops every connection (the fetch fails) and stops listening.
  void Close() {
    if (fd_ < 0) return;
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    fd_ = -1;
    thread_.join();
    std::lock_guard<std::mutex> lock(mu_);
    for (int c : clients_) ::close(c);
    clients_.clear();
  }

 private:
  int fd_ = -1;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::vector<int> clients_;
};

}  // namespace forkscope::testing
