// The negotiating transport (fetch_negotiate.h): libgit2's smart transport over its own git:// or HTTP
// subtransport, whose upload-pack stream is wrapped so that the first negotiation request libgit2 writes
// is replaced by git's rounds of haves. Protocol v0 (all libgit2 1.5 speaks), multi_ack(_detailed) only:
// a server without them gets libgit2's request as it was.

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "analyzer/git/fetch_negotiate.h"
#include "base/log.h"

namespace forkscope::analyzer::git {
namespace {

// git's fetch-pack: rounds start at 16 haves and double; a stateful connection stays at or below 512
// per round (the server acknowledges while we write: a round must fit the socket buffers), a stateless
// one goes to 16384. git gives up after 256 haves in a row go unacknowledged once one was; forkscope
// also stops after 65,536 haves in all (a fork with no history in common offers every commit).
constexpr int kFirstRound = 16;
constexpr int kStatefulRoundCap = 512;
constexpr int kStatelessRoundCap = 16384;
constexpr int kMaxInVain = 256;
constexpr int kMaxHaves = 65536;

std::string Pkt(std::string_view payload) {
  char len[5];
  std::snprintf(len, sizeof len, "%04zx", payload.size() + 4);
  return std::string(len, 4) + std::string(payload);
}
const std::string kFlush = "0000";

std::string HexOf(const git_oid& oid) {
  char hex[GIT_OID_HEXSZ + 1];
  git_oid_tostr(hex, sizeof hex, &oid);
  return hex;
}

int Fail(const std::string& message) {
  git_error_set_str(GIT_ERROR_NET, message.c_str());
  return -1;
}

// libgit2's first negotiation request: wants, a flush, haves, then a flush (more rounds to come) or
// "done" (libgit2's walk ended).
struct Request {
  std::string wants;  // the want lines with their flush, verbatim
  bool done = false;
  bool multi_ack = false;
};

bool ParseRequest(std::string_view data, Request* r) {
  size_t at = 0;
  bool in_wants = true;
  while (at + 4 <= data.size()) {
    unsigned len = 0;
    if (std::sscanf(std::string(data.substr(at, 4)).c_str(), "%4x", &len) != 1) return false;
    if (len == 0) {
      at += 4;
      if (in_wants) {
        r->wants = std::string(data.substr(0, at));
        in_wants = false;
        continue;
      }
      return at == data.size();  // the flush that ends a round of haves
    }
    if (len < 4 || at + len > data.size()) return false;
    std::string_view line = data.substr(at + 4, len - 4);
    at += len;
    if (in_wants) {
      if (line.rfind("want ", 0) != 0) return false;
      if (at == len) r->multi_ack = line.find(" multi_ack") != std::string_view::npos;
    } else if (line == "done\n") {
      r->done = true;
      return at == data.size();
    } else if (line.rfind("have ", 0) != 0) {
      return false;
    }
  }
  return false;
}

struct Subtransport;

struct Stream {
  git_smart_subtransport_stream parent;  // first: libgit2 hands this pointer back
  Subtransport* owner = nullptr;
  git_smart_subtransport_stream* inner = nullptr;  // stateless: opened at the first read or write
  std::string url;
  git_smart_service_t service{};
  std::string pending;  // handed to libgit2 before anything from inner
  size_t pending_at = 0;
};

struct Subtransport {
  git_smart_subtransport parent;
  git_smart_subtransport* inner = nullptr;
  git_remote* remote = nullptr;
  Negotiation* negotiation = nullptr;
  bool rpc = false;
  Stream* current = nullptr;  // stateful: the one connection
  bool tried = false;         // the first negotiation request was seen (negotiated or passed on)
};

int EnsureInner(Stream* s) {
  if (s->inner) return 0;
  return s->owner->inner->action(&s->inner, s->owner->inner, s->url.c_str(), s->service);
}

// Reads pkt-lines of the server's answer to one round from a stream.
class Answer {
 public:
  explicit Answer(git_smart_subtransport_stream* stream) : stream_(stream) {}
  // The next line without its length; false at end of stream or on error (rc says which).
  bool Next(std::string* line, int* rc) {
    while (true) {
      if (buf_.size() - at_ >= 4) {
        unsigned len = 0;
        if (std::sscanf(buf_.substr(at_, 4).c_str(), "%4x", &len) != 1 || (len != 0 && len < 4)) {
          *rc = Fail("fetch negotiation: bad pkt-line from the server");
          return false;
        }
        const size_t need = len == 0 ? 4 : len;
        if (buf_.size() - at_ >= need) {
          *line = len == 0 ? std::string() : buf_.substr(at_ + 4, len - 4);
          at_ += need;
          return true;
        }
      }
      char chunk[16384];
      size_t got = 0;
      if ((*rc = stream_->read(stream_, chunk, sizeof chunk, &got)) < 0) return false;
      if (got == 0) return false;
      buf_.erase(0, at_);
      at_ = 0;
      buf_.append(chunk, got);
    }
  }
  void Drain() {  // the rest of a stateless response, so the HTTP connection can be reused
    char chunk[16384];
    size_t got = 0;
    while (stream_->read(stream_, chunk, sizeof chunk, &got) == 0 && got > 0) {
    }
  }

 private:
  git_smart_subtransport_stream* stream_;
  std::string buf_;
  size_t at_ = 0;
};

// Sends one round (stateless: a request of its own, wants and the commons so far first) and takes in the
// acknowledgements. Adds newly common commits to common (in the order acknowledged).
int Round(Stream* s, const Request& req, bool first, const std::string& haves, HaveWalk& walk,
          std::vector<git_oid>& common, bool* acked_new, bool* ready) {
  Subtransport* t = s->owner;
  git_smart_subtransport_stream* stream = s->inner;
  std::string body;
  if (t->rpc) {
    int rc = t->inner->action(&stream, t->inner, s->url.c_str(), GIT_SERVICE_UPLOADPACK);
    if (rc < 0) return rc;
    body = req.wants;
    for (const auto& c : common) body += Pkt("have " + HexOf(c) + "\n");
  } else if (first) {
    body = req.wants;
  }
  body += haves + kFlush;
  int rc = stream->write(stream, body.data(), body.size());
  Answer answer(stream);
  std::string line;
  while (rc >= 0 && answer.Next(&line, &rc)) {
    if (line.rfind("NAK", 0) == 0) break;
    if (line.rfind("ERR ", 0) == 0) {
      rc = Fail("remote error: " + line.substr(4));
      break;
    }
    git_oid oid;
    if (line.rfind("ACK ", 0) != 0 || line.size() < 4 + GIT_OID_HEXSZ ||
        git_oid_fromstrn(&oid, line.c_str() + 4, GIT_OID_HEXSZ) < 0) {
      rc = Fail("fetch negotiation: unexpected answer '" + line + "'");
      break;
    }
    if (line.find(" ready", 4 + GIT_OID_HEXSZ) != std::string::npos) *ready = true;
    if (!walk.Ack(oid)) {
      common.push_back(oid);
      *acked_new = true;
    }
  }
  if (rc == 0 && line.rfind("NAK", 0) != 0) rc = Fail("fetch negotiation: the server hung up");
  if (t->rpc) {
    if (rc == 0) answer.Drain();
    stream->free(stream);
  }
  return rc;
}

// Replaces libgit2's first request (req) by git's rounds; leaves in s->pending what libgit2 reads next.
int Negotiate(Stream* s, const Request& req, std::string_view original) {
  Subtransport* t = s->owner;
  Negotiation* n = t->negotiation;
  git_repository* repo = git_remote_owner(t->remote);
  HaveWalk walk(repo);
  // The advertised tips that are here (peeled to their commits) first, as git does, then every local ref.
  const git_remote_head** heads = nullptr;
  size_t count = 0;
  if (git_remote_ls(&heads, &count, t->remote) == 0) {
    for (size_t i = 0; i < count; ++i) {
      git_object* raw = nullptr;
      if (git_object_lookup(&raw, repo, &heads[i]->oid, GIT_OBJECT_ANY) < 0) continue;
      git_object* peeled = nullptr;
      if (git_object_peel(&peeled, raw, GIT_OBJECT_COMMIT) == 0) {
        walk.KnownCommon(*git_object_id(peeled));
        git_object_free(peeled);
      }
      git_object_free(raw);
    }
    git_error_clear();
  }
  walk.AddLocalRefs();
  git_oid oid;
  if (!walk.Next(&oid)) {  // nothing here to offer (an empty network): libgit2's request as it was
    if (int rc = EnsureInner(s); rc < 0) return rc;
    return s->inner->write(s->inner, original.data(), original.size());
  }
  n->ran = true;
  std::vector<git_oid> common;
  const int cap = t->rpc ? kStatelessRoundCap : kStatefulRoundCap;
  int round = kFirstRound, in_vain = 0;
  bool any_ack = false, more = true;
  while (more && !n->ready) {
    std::string haves;
    int in_round = 0;
    do {
      haves += Pkt("have " + HexOf(oid) + "\n");
      ++in_round;
      more = walk.Next(&oid);
    } while (more && in_round < round && n->haves + in_round < kMaxHaves);
    bool acked_new = false;
    if (int rc = Round(s, req, n->rounds == 0, haves, walk, common, &acked_new, &n->ready); rc < 0) return rc;
    ++n->rounds;
    n->haves += in_round;
    in_vain = acked_new ? 0 : in_vain + in_round;
    any_ack = any_ack || acked_new;
    if ((any_ack && in_vain > kMaxInVain) || n->haves >= kMaxHaves) break;
    round = std::min(round * 2, cap);
  }
  n->common = static_cast<int>(common.size());
  base::Log(base::LogArea::kGit)
      ->debug("fetch negotiation rounds={} haves={} common={} ready={}", n->rounds, n->haves, n->common, n->ready);
  if (req.done) {  // libgit2 already said done: say it for it, then its reads take the server's answer
    std::string last;
    if (t->rpc) {
      if (int rc = EnsureInner(s); rc < 0) return rc;
      last = req.wants;
      for (const auto& c : common) last += Pkt("have " + HexOf(c) + "\n");
    }
    last += Pkt("done\n");
    return s->inner->write(s->inner, last.data(), last.size());
  }
  // The acknowledgements libgit2's round would have earned: it takes them as common (and, stateless,
  // sends them again with its "done"), then says done.
  const char* status =
      std::string_view(req.wants).find("multi_ack_detailed") != std::string_view::npos ? " common" : " continue";
  for (const auto& c : common) s->pending += Pkt("ACK " + HexOf(c) + status + "\n");
  s->pending += Pkt("NAK\n");
  s->pending_at = 0;
  return 0;
}

int StreamWrite(git_smart_subtransport_stream* stream, const char* buffer, size_t len) {
  auto* s = reinterpret_cast<Stream*>(stream);
  Request req;
  if (s->service == GIT_SERVICE_UPLOADPACK && !s->owner->tried) {
    s->owner->tried = true;
    if (ParseRequest(std::string_view(buffer, len), &req) && req.multi_ack)
      return Negotiate(s, req, std::string_view(buffer, len));
  }
  if (int rc = EnsureInner(s); rc < 0) return rc;
  return s->inner->write(s->inner, buffer, len);
}

int StreamRead(git_smart_subtransport_stream* stream, char* buffer, size_t size, size_t* bytes_read) {
  auto* s = reinterpret_cast<Stream*>(stream);
  if (s->pending_at < s->pending.size()) {
    *bytes_read = std::min(size, s->pending.size() - s->pending_at);
    std::memcpy(buffer, s->pending.data() + s->pending_at, *bytes_read);
    s->pending_at += *bytes_read;
    return 0;
  }
  if (int rc = EnsureInner(s); rc < 0) return rc;
  return s->inner->read(s->inner, buffer, size, bytes_read);
}

void StreamFree(git_smart_subtransport_stream* stream) {
  auto* s = reinterpret_cast<Stream*>(stream);
  if (s->inner) s->inner->free(s->inner);
  if (s->owner->current == s) s->owner->current = nullptr;
  delete s;
}

int SubAction(git_smart_subtransport_stream** out, git_smart_subtransport* sub, const char* url,
              git_smart_service_t service) {
  auto* t = reinterpret_cast<Subtransport*>(sub);
  *out = nullptr;
  git_smart_subtransport_stream* inner = nullptr;
  if (!t->rpc) {  // stateful: the advertisement's stream is the negotiation's
    if (int rc = t->inner->action(&inner, t->inner, url, service); rc < 0) return rc;
    if (t->current && t->current->inner == inner) {
      t->current->service = service;  // the advertisement's stream, now negotiating
      *out = &t->current->parent;
      return 0;
    }
  }
  auto* s = new Stream();
  s->parent.subtransport = sub;
  s->parent.read = StreamRead;
  s->parent.write = StreamWrite;
  s->parent.free = StreamFree;
  s->owner = t;
  s->inner = inner;
  s->url = url;
  s->service = service;
  if (!t->rpc) t->current = s;
  *out = &s->parent;
  return 0;
}

int SubClose(git_smart_subtransport* sub) {
  auto* t = reinterpret_cast<Subtransport*>(sub);
  return t->inner->close(t->inner);
}

void SubFree(git_smart_subtransport* sub) {
  auto* t = reinterpret_cast<Subtransport*>(sub);
  t->inner->free(t->inner);
  delete t;
}

struct Factory {
  git_smart_subtransport_cb inner;
  git_remote* remote;
  Negotiation* negotiation;
  bool rpc;
};

int MakeSubtransport(git_smart_subtransport** out, git_transport* owner, void* param) {
  auto* f = static_cast<Factory*>(param);
  auto* t = new Subtransport();
  if (int rc = f->inner(&t->inner, owner, nullptr); rc < 0) {
    delete t;
    return rc;
  }
  t->parent.action = SubAction;
  t->parent.close = SubClose;
  t->parent.free = SubFree;
  t->remote = f->remote;
  t->negotiation = f->negotiation;
  t->rpc = f->rpc;
  *out = &t->parent;
  return 0;
}

}  // namespace

int NegotiatingTransport(git_transport** out, git_remote* owner, Negotiation* negotiation) {
  *out = nullptr;
  const std::string_view url = git_remote_url(owner) ? git_remote_url(owner) : "";
  Factory f{nullptr, owner, negotiation, false};
  if (url.rfind("git://", 0) == 0) {
    f.inner = git_smart_subtransport_git;
  } else if (url.rfind("http://", 0) == 0 || url.rfind("https://", 0) == 0) {
    f.inner = git_smart_subtransport_http;
    f.rpc = true;
  } else {
    return 0;
  }
  git_smart_subtransport_definition definition{MakeSubtransport, f.rpc ? 1u : 0u, &f};
  return git_transport_smart(out, owner, &definition);
}

}  // namespace forkscope::analyzer::git
