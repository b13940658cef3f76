#include "server/services/pattern_catalogue.h"

#include <algorithm>
#include <set>

#include "analyzer/patterns/pattern_catalogue.h"
#include "analyzer/patterns/pattern_describe.h"
#include "base/log.h"

namespace forkscope::server {
namespace {

// The grouping step's catalogue over the stored rows of one analysis' mining.
class StoredCatalogue : public analyzer::FingerprintCatalogue {
 public:
  explicit StoredCatalogue(storage::SqlCatalogue& rows) : rows_(rows) {}

  Result<std::optional<std::string>> PatternOf(const std::string& hash) override { return rows_.PatternOf(hash); }
  Result<std::vector<analyzer::CatalogueCandidate>> Candidates(const std::string& scope,
                                                               const std::vector<uint64_t>& buckets) override {
    FS_ASSIGN_OR_RETURN(std::vector<storage::StoredFingerprint> stored, rows_.Candidates(scope, buckets));
    std::vector<analyzer::CatalogueCandidate> out;
    out.reserve(stored.size());
    for (auto& s : stored)
      out.push_back({std::move(s.hash), std::move(s.pattern_id), s.pattern_seq, analyzer::TokensFromText(s.tokens)});
    return out;
  }
  Status Add(const analyzer::HunkFingerprint& fp, const std::vector<uint64_t>& buckets, const std::string& pattern_id,
             bool new_pattern) override {
    return rows_.Add({fp.hash, analyzer::LayerName(fp.layer), analyzer::FileKindName(fp.kind), fp.Scope(), fp.Text()},
                     buckets, pattern_id, new_pattern);
  }
  Status Merge(const std::string& into, const std::string& from) override { return rows_.Merge(into, from); }

 private:
  storage::SqlCatalogue& rows_;
};

Status MineAnalysis(storage::Store& store, base::Clock& clock, const analyzer::MiningOptions& options,
                    int64_t analysis_id, storage::MiningReport& report) {
  // Normalising is the slow part: do it before taking the write lock.
  FS_ASSIGN_OR_RETURN(std::vector<storage::MinableHunk> hunks,
                      storage::PatternStore(store, clock).HunksToMine(analysis_id));
  std::vector<analyzer::HunkFingerprint> fingerprints;
  fingerprints.reserve(hunks.size());
  for (const auto& h : hunks) fingerprints.push_back(analyzer::Fingerprint(options, h.path, h.layer, h.lines));
  storage::AnalysisMining mining(store, clock, analysis_id);
  FS_ASSIGN_OR_RETURN(bool begun, mining.Begin());
  if (!begun) return Status::Ok();
  StoredCatalogue catalogue(mining.catalogue());
  std::set<std::string> named_seen;
  for (size_t i = 0; i < hunks.size(); ++i) {
    const analyzer::HunkFingerprint& fp = fingerprints[i];
    named_seen.insert(hunks[i].named.begin(), hunks[i].named.end());
    if (fp.hash.empty()) continue;
    FS_ASSIGN_OR_RETURN(analyzer::Assignment a, analyzer::AssignPattern(catalogue, options, fp));
    FS_RETURN_IF_ERROR(mining.Link(hunks[i].hunk_id, fp.hash, !a.new_fingerprint));
    report.hunks += 1;
    report.new_fingerprints += a.new_fingerprint;
    report.new_patterns += a.new_pattern;
    report.merged_patterns += static_cast<int>(a.merged.size());
  }
  FS_RETURN_IF_ERROR(mining.Finish(named_seen));
  report.analyses += 1;
  return Status::Ok();
}

}  // namespace

Result<storage::MiningReport> MinePatterns(storage::Store& store, base::Clock& clock,
                                           const analyzer::MiningOptions& options) {
  storage::PatternStore patterns(store, clock);
  storage::MiningReport report;
  FS_ASSIGN_OR_RETURN(report.rebuilt, patterns.ResetIfMiningChanged(options.Version()));
  FS_ASSIGN_OR_RETURN(std::vector<int64_t> todo, patterns.Unmined());
  for (int64_t id : todo) FS_RETURN_IF_ERROR(MineAnalysis(store, clock, options, id, report));
  if (report.analyses > 0)
    base::Log(base::LogArea::kStore)
        ->info("patterns mined analyses={} hunks={} new_fingerprints={} new_patterns={} merged={}", report.analyses,
               report.hunks, report.new_fingerprints, report.new_patterns, report.merged_patterns);
  return report;
}

void DescribeCataloguePattern(storage::CataloguePattern& p) {
  if (p.kind != storage::PatternKind::kMined || p.seed_tokens.empty()) {  // the rule's own description
    p.description_code = "pattern.named";
    p.description_params = {{"id", p.id}};
    return;
  }
  analyzer::HunkFingerprint fp;  // the seed's, as mining made it
  fp.layer = analyzer::LayerFromName(p.layer).value_or(analyzer::Layer::kOther);
  fp.kind = analyzer::FileKindFromName(p.file_kind);
  fp.tokens = analyzer::TokensFromText(p.seed_tokens);
  const std::string path = p.example ? p.example->path : std::string();
  static const std::vector<std::string> kNoLines;
  analyzer::PatternDescription d = analyzer::DescribeMinedPattern(fp, path, p.example ? p.example->lines : kNoLines);
  p.description = std::move(d.text);
  p.description_code = std::move(d.code);
  p.description_params = std::move(d.params);
  const analyzer::PatternAction action = analyzer::ActionOf(fp);
  p.action = analyzer::PatternActionName(action);
  p.rank = analyzer::MigrationRank(action, analyzer::IsCiOrDocs(fp.kind, path));
}

Result<std::vector<storage::CataloguePattern>> ListCatalogue(storage::Store& store, base::Clock& clock,
                                                             const storage::PatternFilter& filter) {
  FS_ASSIGN_OR_RETURN(std::vector<storage::CataloguePattern> out, storage::PatternStore(store, clock).List(filter));
  for (auto& p : out) DescribeCataloguePattern(p);
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    if (a.rank != b.rank) return a.rank < b.rank;
    return a.forks_count() != b.forks_count() ? a.forks_count() > b.forks_count() : a.total > b.total;
  });
  return out;
}

Result<storage::CataloguePattern> GetCataloguePattern(storage::Store& store, base::Clock& clock,
                                                      const std::string& id) {
  FS_ASSIGN_OR_RETURN(storage::CataloguePattern p, storage::PatternStore(store, clock).Get(id));
  DescribeCataloguePattern(p);
  return p;
}

}  // namespace forkscope::server
