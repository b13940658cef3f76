// Moving an integrator's pin: the commands a maintainer runs to bump a library's gitlink by hand, the
// bump pushed by forkscope itself (one commit changing only that gitlink, built in memory, pushed to
// refs/heads/forkscope/bump-<lib>-<sha12> of the integrator's push URL — never to any other branch),
// the pins a force-push of a fork's migration branch would orphan, and the command that keeps such a
// pin reachable (a tag paddle-archive/<date>-<sha12> on the fork). Any thread may call.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/integration/integrator.h"
#include "base/status.h"

namespace forkscope::analyzer::integration {

// The shell commands that bump path to new_sha on a branch forkscope/bump-<lib>-<sha12> cut from the
// integrator's branch, in a clone of the integrator (credentials stripped from the URLs).
std::string BumpCommands(const IntegratorSource& integrator, const LibraryReport& lib, const std::string& new_sha);

// The command that keeps pin reachable on the fork before its migration branch is replaced: a tag
// paddle-archive/<YYYY-MM-DD>-<sha12>, date from unix seconds now_s (UTC).
std::string ArchiveTagName(const std::string& pin, int64_t now_s);
std::string ArchiveCommands(const std::string& fork_url, const std::string& pin, int64_t now_s);

struct BumpRequest {
  IntegratorSource integrator;  // repo + ref: the integrator's mirror and branch
  LibraryReport library;        // its path, name and current pin
  std::string new_sha;          // the commit to pin (the fork's ready candidate, published)
  std::string fork_url;         // for the commit message
  std::string push_url;         // where to push; credentials allowed (never shown)
  int64_t now_s = 0;            // commit time
};

struct BumpOutcome {
  std::string commit;    // the bump commit
  std::string dest_ref;  // refs/heads/forkscope/bump-<lib>-<sha12>
  std::string commands;  // the manual equivalent (BumpCommands)
};

// Builds the bump commit in the integrator's mirror (under refs/forkscope/bumps/<lib>-<sha12>) and
// pushes it. Errors as CommitGitlinkBump and PushCommit (nothing pushed when the commit cannot be made).
Result<BumpOutcome> PushBump(const BumpRequest& request);

// The libraries of report pinned on fork whose pin a replacement of fork.branch by `replacement`
// would orphan (reachable now, from no branch or tag afterwards).
Result<std::vector<LibraryReport>> PinsOrphanedBy(const IntegratorReport& report, const RegisteredFork& fork,
                                                  const std::string& replacement);

}  // namespace forkscope::analyzer::integration
