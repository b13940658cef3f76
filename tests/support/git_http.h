// A git smart-HTTP server on 127.0.0.1 that requires basic auth (tests/support/git_http_server.py:
// `git http-backend` behind a small Python server), for the credential cases. Serves the bare
// repositories under root; logs each request to <root>/requests.log.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace forkscope::testing {

class GitHttpServer {
 public:
  // users: "name:password" pairs it accepts. Starts it and waits for its port (REQUIREs).
  GitHttpServer(const std::string& root, const std::vector<std::string>& users);
  ~GitHttpServer();  // stops it
  GitHttpServer(const GitHttpServer&) = delete;
  GitHttpServer& operator=(const GitHttpServer&) = delete;

  int port() const { return port_; }
  // "http://<userinfo>@127.0.0.1:<port>/<repo>" ("http://127.0.0.1:<port>/<repo>" for an empty userinfo).
  std::string Url(const std::string& userinfo, const std::string& repo) const;
  // A bare copy of the repository at src under root as name (e.g. "fork.git"); returns name.
  std::string Publish(const std::string& src, const std::string& name) const;

 private:
  std::string root_;
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace forkscope::testing
