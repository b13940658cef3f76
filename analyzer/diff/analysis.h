// One analysis of a fork's migration branch against upstream, in two steps so a caller can answer
// from its store in between: ResolvePair (sync both into the upstream's fork network, pick branches and the base) and
// AnalyzeResolved (diff, classify, lint). Each call opens its own repositories: any thread may call.
#pragma once

#include <string>

#include "analyzer/classify/rules.h"
#include "analyzer/git/repo.h"
#include "analyzer/git/transfer.h"
#include "analyzer/model/model.h"
#include "base/clock.h"
#include "base/status.h"

namespace forkscope::analyzer {

struct AnalyzeRequest {
  std::string fork_location;  // URL or local path
  std::string branch;         // "" = "paddle", falling back to the fork's default branch
  std::string upstream_location;
  std::string upstream_branch;  // "" = upstream default branch, "auto" = the branch the fork was cut from
  std::string base;             // "" = merge-base, a revision, or "auto" (search upstream history)
  std::string head;             // optional: analyse this fork revision instead of the branch head
  // The fork's registered name: its refs live under refs/forks/<fork_name>/ in the upstream's network
  // (analyzer/git/network.h); "" = a namespace named after the fork's URL (a one-shot analysis).
  std::string fork_name;
  std::string data_dir;  // networks live under <data_dir>/networks
  bool fetch = true;     // refresh refs that already exist in the network
  bool allow_foreign_owner = false;
  analyzer::ProgressFn progress;
  git::DiffOptions diff;
  int base_search_limit = 2000;  // commits of upstream history scanned by --base auto
  // What to do about unrelated histories when base is "" (appended to the error); "" = the CLI's
  // advice (--base REV, --base auto). The daemon names the fork's `base` field instead.
  std::string unrelated_advice;
  int auto_branch_limit = 100;  // upstream branches tried by --upstream-branch auto
};

// Everything decided before the diff: the shas that key the analysis and the header fields.
struct ResolvedPair {
  std::string fork_mirror;  // for a network, both are the network's path
  std::string upstream_mirror;
  Analysis header;      // fork, upstream, merge_base, base_source, base_distance, ahead, behind, notices...
  git::RefSpaces refs;  // where each side's refs live in them
};

Result<ResolvedPair> ResolvePair(const AnalyzeRequest& request);
// Ahead and behind counted from the base the header used: for a merge-base, the commits of each side
// the other lacks; for a given or searched base, the fork's commits not reachable from it and upstream's
// commits since it (a re-imported fork is behind by what upstream did after the commit it copied).
Result<std::pair<int, int>> AheadBehindFromBase(const git::PairRepo& repo, const Analysis& header);
// For a CI checkout: both sides live in one repository (a work tree or its .git directory); head and
// upstream are revisions in it ("HEAD", "origin/main", a sha). No mirrors, no fetch.
Result<ResolvedPair> ResolveLocal(const std::string& repo_dir, const std::string& head, const std::string& upstream);
Result<Analysis> AnalyzeResolved(const ResolvedPair& pair, const Rules& rules, const git::DiffOptions& options,
                                 base::Clock& clock = base::SystemClock());

}  // namespace forkscope::analyzer
