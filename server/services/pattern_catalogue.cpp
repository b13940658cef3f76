#include "server/services/pattern_catalogue.h"

#include <algorithm>

#include "analyzer/patterns/pattern_describe.h"
#include "analyzer/patterns/pattern_mining.h"

namespace forkscope::server {

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
