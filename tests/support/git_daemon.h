// `git daemon` on 127.0.0.1 (the git:// protocol, stateful negotiation over one connection), serving the
// bare repositories under root. For the fetch-negotiation cases; git_http.h serves the same over
// smart HTTP (stateless).
#pragma once

#include <sys/types.h>

#include <string>

namespace forkscope::testing {

class GitDaemon {
 public:
  explicit GitDaemon(const std::string& root);  // starts it and waits for its port (REQUIREs)
  ~GitDaemon();                                 // stops it
  GitDaemon(const GitDaemon&) = delete;
  GitDaemon& operator=(const GitDaemon&) = delete;

  // "git://127.0.0.1:<port>/<repo>".
  std::string Url(const std::string& repo) const;

 private:
  std::string root_;
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace forkscope::testing
