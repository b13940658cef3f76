// HaveWalk (fetch_negotiate.h): git 2.39's default negotiator, rev_list_push / mark_common / get_rev
// of negotiator/default.c, over libgit2 commits.
#include <cstring>

#include "analyzer/git/fetch_negotiate.h"
#include "analyzer/git/handles.h"

namespace forkscope::analyzer::git {

uint32_t HaveWalk::NodeFor(const git_oid& oid) {
  std::string key(reinterpret_cast<const char*>(oid.id), GIT_OID_RAWSZ);
  auto [it, added] = index_.emplace(std::move(key), static_cast<uint32_t>(nodes_.size()));
  if (added) {
    nodes_.emplace_back();
    git_oid_cpy(&nodes_.back().oid, &oid);
  }
  return it->second;
}

bool HaveWalk::Parse(uint32_t n) {
  if (nodes_[n].flags & kParsed) return true;
  git_commit* raw = nullptr;
  const git_oid oid = nodes_[n].oid;
  if (git_commit_lookup(&raw, repo_, &oid) < 0) {
    git_error_clear();
    return false;
  }
  CommitPtr commit(raw);
  std::vector<uint32_t> parents;
  for (unsigned i = 0; i < git_commit_parentcount(commit.get()); ++i)
    parents.push_back(NodeFor(*git_commit_parent_id(commit.get(), i)));  // may grow nodes_
  Node& node = nodes_[n];
  node.time = git_commit_time(commit.get());
  node.parents = std::move(parents);
  node.flags |= kParsed;
  return true;
}

void HaveWalk::Push(uint32_t n, uint8_t mark) {
  if (nodes_[n].flags & mark) return;
  nodes_[n].flags |= mark;
  if (!Parse(n)) return;
  queue_.push({nodes_[n].time, order_++, n});
  if (!(nodes_[n].flags & kCommon)) ++non_common_;
}

void HaveWalk::MarkCommon(uint32_t n, bool ancestors_only, bool dont_parse) {
  if (nodes_[n].flags & kCommon) return;
  if (!ancestors_only) {
    nodes_[n].flags |= kCommon;
    if ((nodes_[n].flags & kSeen) && !(nodes_[n].flags & kPopped)) --non_common_;
  }
  std::vector<uint32_t> todo{n};
  while (!todo.empty()) {
    const uint32_t m = todo.back();
    todo.pop_back();
    if (!(nodes_[m].flags & kSeen)) {
      Push(m, kSeen);
      continue;
    }
    if (!(nodes_[m].flags & kParsed) && (dont_parse || !Parse(m))) continue;
    for (uint32_t p : std::vector<uint32_t>(nodes_[m].parents)) {
      if (nodes_[p].flags & kCommon) continue;
      nodes_[p].flags |= kCommon;
      if ((nodes_[p].flags & kSeen) && !(nodes_[p].flags & kPopped)) --non_common_;
      todo.push_back(p);
    }
  }
}

void HaveWalk::KnownCommon(const git_oid& oid) {
  const uint32_t n = NodeFor(oid);
  if (nodes_[n].flags & kSeen) return;
  Push(n, kCommonRef | kSeen);
  MarkCommon(n, true, true);
}

void HaveWalk::AddLocalRefs() {
  git_reference_iterator* raw = nullptr;
  if (git_reference_iterator_glob_new(&raw, repo_, "refs/*") < 0) {
    git_error_clear();
    return;
  }
  Handle<git_reference_iterator, git_reference_iterator_free> it(raw);
  git_reference* ref = nullptr;
  while (git_reference_next(&ref, it.get()) == 0) {
    ReferencePtr owned(ref);
    git_object* peeled = nullptr;
    if (git_reference_peel(&peeled, ref, GIT_OBJECT_COMMIT) < 0) {
      git_error_clear();
      continue;
    }
    ObjectPtr commit(peeled);
    Push(NodeFor(*git_object_id(commit.get())), kSeen);
  }
}

bool HaveWalk::Next(git_oid* out) {
  while (!queue_.empty() && non_common_ > 0) {
    const uint32_t n = queue_.top().node;
    queue_.pop();
    Node& node = nodes_[n];
    node.flags |= kPopped;
    if (!(node.flags & kCommon)) --non_common_;
    // A common commit is not offered and neither are its ancestors; a known-common tip is offered,
    // its ancestors not; any other commit is offered and its parents queued.
    const bool offer = !(node.flags & kCommon);
    const uint8_t mark = (node.flags & (kCommon | kCommonRef)) ? (kCommon | kSeen) : kSeen;
    const git_oid oid = node.oid;
    for (uint32_t p : std::vector<uint32_t>(node.parents)) {
      if (!(nodes_[p].flags & kSeen)) Push(p, mark);
      if (mark & kCommon) MarkCommon(p, true, false);
    }
    if (offer) {
      git_oid_cpy(out, &oid);
      return true;
    }
  }
  return false;
}

bool HaveWalk::Ack(const git_oid& oid) {
  const uint32_t n = NodeFor(oid);
  const bool known = nodes_[n].flags & kCommon;
  MarkCommon(n, false, true);
  return known;
}

}  // namespace forkscope::analyzer::git
