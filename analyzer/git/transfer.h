// What every transfer into forkscope's repositories shares: its options (the progress values are the
// model's, analyzer/model/transfer.h), how a user-given location is normalised and shown, and the lock that keeps two
// writers out of one repository (threads of one daemon, or a daemon and a CLI run). Repositories
// themselves are fork networks (network.h): one bare repository per upstream.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "analyzer/model/transfer.h"
#include "base/status.h"

namespace forkscope::analyzer::git {

struct TransferOptions {
  std::string data_dir;              // networks live in <data_dir>/networks/
  bool allow_foreign_owner = false;  // disable libgit2's owner validation (a repo owned by another user)
  ProgressFn progress;               // may be empty
};

// Normalises a user-given location: plain local paths become absolute paths; URLs stay as given.
// InvalidArgument for empty or malformed locations, NotFound for a local path that does not exist.
Result<std::string> NormalizeLocation(const std::string& location);

// Where releases before fork networks kept a URL's per-URL mirror (<data_dir>/mirrors/<slug>-<hash>.git),
// named by the URL without credentials. Read only to move old data into networks (MigrateMirrors); a
// network is named the same way under networks/.
std::string LegacyMirrorPathFor(const std::string& data_dir, const std::string& url);

// An exclusive lock on <repo>.lock for the life of the object: two writers of one repository (syncs of
// forks that share an upstream, a carry writing its candidate ref; threads of one daemon, or a daemon
// and a CLI run) never write it at once.
class RepoLock {
 public:
  explicit RepoLock(const std::string& repo_path);
  ~RepoLock();
  RepoLock(const RepoLock&) = delete;
  RepoLock& operator=(const RepoLock&) = delete;
  bool locked() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// The URL with its userinfo shown as "***", for logs and messages (base::RedactUrl).
std::string RedactUrl(const std::string& url);

}  // namespace forkscope::analyzer::git
