// Internal to analyzer/diff: the steps of ResolvePair that have a file of their own — the base search of
// a re-imported fork (base_search.cpp) and the branch checks (branches.cpp). One thread, one PairRepo.
#pragma once

#include "analyzer/diff/analysis.h"

namespace forkscope::analyzer::resolve {

// Searches upstream history for the commit a fork with no shared history was taken from; sets
// a.merge_base, a.base_source ("searched"), a.base_distance and a notice.
Status SearchBase(const git::PairRepo& repo, int limit, Analysis& a);

// The sha of the fork's (or upstream's) branch; a missing one is NotFound naming the branches it has.
Result<std::string> ForkBranchSha(const git::PairRepo& repo, const std::string& branch);
Result<std::string> UpstreamBranchSha(const git::PairRepo& repo, const std::string& branch);

// The upstream branch whose merge-base with the fork leaves the smallest fork-side diff (auto).
Result<std::string> AutoUpstreamBranch(const git::PairRepo& repo, const std::string& fork_sha, int limit,
                                       std::string& note);

// When the upstream branch was named or defaulted and another upstream branch's merge-base leaves a far
// smaller fork-side diff (a quarter of the files or fewer, from 20 files on), a notice naming it.
Status NoteSmallerUpstreamBranch(const git::PairRepo& repo, const AnalyzeRequest& req, Analysis& a);

}  // namespace forkscope::analyzer::resolve
