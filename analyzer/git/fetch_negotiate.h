// Fetch negotiation as git does it, for libgit2 1.5's smart transports. Internal to analyzer/git/.
//
// libgit2 1.5 (src/libgit2/transports/smart_protocol.c) offers at most 256 haves, twenty at a time, and
// says "done" after the first twenty of which the server acknowledges one. Its walk queues the refs'
// commits before reading their dates, so it goes in ref-name order, down one ref's history until a
// commit another ref names, then on to the next ref (libgit2 issue #6532; the fix, PR #6540, is not in
// 1.5). In a fork network that reaches an old upstream tag the fork has before the fork point, and the
// fork's fetch brings upstream's history since that tag again: 425 objects where git fetch takes 13 for
// a generated fork cut 130 commits behind, 19,785 against 9,750 for a real one 449 behind
// (network_bench.py (g)). So forkscope negotiates inside libgit2's own transport: a stream wrapped
// around libgit2's git:// and HTTP(S) streams replaces libgit2's first request with git's walk (HaveWalk
// below, in rounds, until the server is ready, the walk has nothing left that is not common, or 256
// haves in a row go unacknowledged), then hands libgit2 the acknowledgements as if its twenty had earned
// them; libgit2 says "done" and receives a pack of the fork's own objects. Every other byte — the ref
// advertisement, "done", the pack — passes through unchanged.
#pragma once

#include <git2.h>
#include <git2/sys/transport.h>

#include <cstdint>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

namespace forkscope::analyzer::git {

// git's default fetch negotiator (git 2.39 negotiator/default.c) over a repository: the commits of every
// local ref, newest first; a commit the server acknowledges is common, and so are its ancestors, which
// are never offered. One fetch, one thread.
class HaveWalk {
 public:
  explicit HaveWalk(git_repository* repo) : repo_(repo) {}
  // An advertised tip that is here already: offered first among its date, its ancestors never.
  void KnownCommon(const git_oid& oid);
  // Queues the commit of every ref under refs/ (annotated tags peeled, other objects skipped).
  void AddLocalRefs();
  // The next commit to offer; false when the walk is over or everything left is common.
  bool Next(git_oid* out);
  // The server has oid: it and its ancestors are common. Returns whether it was common already.
  bool Ack(const git_oid& oid);

 private:
  enum : uint8_t { kSeen = 1, kCommon = 2, kCommonRef = 4, kPopped = 8, kParsed = 16 };
  struct Node {
    git_oid oid;
    int64_t time = 0;
    uint8_t flags = 0;
    std::vector<uint32_t> parents;
  };
  struct Queued {
    int64_t time;
    uint64_t order;
    uint32_t node;
    bool operator<(const Queued& o) const { return time != o.time ? time < o.time : order > o.order; }
  };
  uint32_t NodeFor(const git_oid& oid);
  bool Parse(uint32_t n);               // loads time and parents; false when no such commit is here
  void Push(uint32_t n, uint8_t mark);  // git's rev_list_push
  void MarkCommon(uint32_t n, bool ancestors_only, bool dont_parse);

  git_repository* repo_;
  std::vector<Node> nodes_;
  std::unordered_map<std::string, uint32_t> index_;  // raw oid -> nodes_ index
  std::priority_queue<Queued> queue_;
  uint64_t order_ = 0;
  int non_common_ = 0;  // queued commits not known to be common
};

// What one fetch's negotiation did (for the log line and the tests).
struct Negotiation {
  bool ran = false;  // forkscope negotiated (false: libgit2's own request went through)
  int rounds = 0;
  int haves = 0;       // haves offered
  int common = 0;      // of those, acknowledged
  bool ready = false;  // the server said it had enough
};

// A git_remote_callbacks.transport factory: git:// and http(s):// URLs get libgit2's smart transport over
// its own subtransport, wrapped to negotiate as above (fill in negotiation); other URLs (local paths,
// ssh) get *out = nullptr, which makes libgit2 choose as it would without the callback.
int NegotiatingTransport(git_transport** out, git_remote* owner, Negotiation* negotiation);

}  // namespace forkscope::analyzer::git
