// Reading the pattern catalogue: occurrences of named and mined patterns in current analyses,
// aggregated per pattern and fork, with first/last seen and a representative hunk.
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "storage/pattern_sql.h"
#include "storage/pattern_store.h"

namespace forkscope::storage {

using internal::ForEachRow;

namespace internal {

std::vector<analyzer::DiffLine> DecodeHunkLines(std::string_view text, int old_start, int new_start) {
  std::vector<analyzer::DiffLine> lines;
  if (text.empty()) return lines;
  size_t begin = 0;
  while (begin <= text.size()) {
    const size_t end = std::min(text.find('\n', begin), text.size());
    const std::string_view raw = text.substr(begin, end - begin);
    analyzer::DiffLine line;
    line.origin = raw.empty() ? ' ' : raw[0];
    if (!raw.empty()) line.text = std::string(raw.substr(1));
    if (line.origin != '+') line.old_lineno = old_start++;
    if (line.origin != '-') line.new_lineno = new_start++;
    lines.push_back(std::move(line));
    begin = end + 1;
  }
  return lines;
}

}  // namespace internal

namespace {

// One occurrence row, with what aggregation needs besides the public fields.
struct Row {
  PatternOccurrence occurrence;
  int64_t hunk_id = 0;
  std::string hash;  // mined: the hunk's fingerprint
};

// Every occurrence of named (kind == kNamed) or mined patterns in current analyses, optionally of one id.
Result<std::vector<Row>> Occurrences(Database& db, PatternKind kind, const std::string& only_id) {
  const std::string join =
      kind == PatternKind::kNamed
          ? " JOIN hunk_patterns x ON x.hunk_id = h.id"
          : " JOIN hunk_fingerprints hf ON hf.hunk_id = h.id JOIN fingerprints x ON x.hash = hf.hash";
  const std::string hash = kind == PatternKind::kNamed ? "''" : "x.hash";
  std::string sql = std::string(internal::kCurrentAnalyses) +
                    "SELECT x.pattern_id, c.fork, c.analysis_id, fi.path, h.idx, "
                    "h.new_start, h.layer, h.id, " +
                    hash +
                    " FROM current c"
                    " JOIN files fi ON fi.analysis_id = c.analysis_id JOIN hunks h ON h.file_id = fi.id" +
                    join + (only_id.empty() ? "" : " WHERE x.pattern_id = ?1") + " ORDER BY c.fork, fi.idx, h.idx";
  FS_ASSIGN_OR_RETURN(Statement stmt, db.Prepare(sql));
  if (!only_id.empty()) stmt.Bind(1, only_id);
  std::vector<Row> rows;
  FS_RETURN_IF_ERROR(ForEachRow(stmt, [&](Statement& r) {
    Row row;
    row.occurrence = {r.ColumnText(0), r.ColumnText(1), r.ColumnInt64(2), r.ColumnText(3),
                      r.ColumnInt(4),  r.ColumnInt(5),  r.ColumnText(6)};
    row.hunk_id = r.ColumnInt64(7);
    row.hash = r.ColumnText(8);
    rows.push_back(std::move(row));
    return Status::Ok();
  }));
  return rows;
}

// Catalogue facts of a pattern that do not come from its occurrences.
struct Meta {
  std::string layer;
  std::string file_kind;
  std::string description;
  std::string seed;         // mined
  std::string seed_tokens;  // mined: the seed fingerprint's tokens, as stored
  int64_t first_seen = 0;
  int64_t last_seen = 0;
};

Result<std::map<std::string, Meta>> NamedMeta(Database& db) {
  std::map<std::string, Meta> out;
  FS_ASSIGN_OR_RETURN(Statement stmt, db.Prepare("SELECT p.id, p.layer, p.description, COALESCE(s.first_seen, 0),"
                                                 " COALESCE(s.last_seen, 0) FROM patterns p"
                                                 " LEFT JOIN named_pattern_seen s ON s.pattern_id = p.id"));
  FS_RETURN_IF_ERROR(ForEachRow(stmt, [&](Statement& r) {
    out[r.ColumnText(0)] = {r.ColumnText(1), "", r.ColumnText(2), "", "", r.ColumnInt64(3), r.ColumnInt64(4)};
    return Status::Ok();
  }));
  return out;
}

Result<std::map<std::string, Meta>> MinedMeta(Database& db) {
  std::map<std::string, Meta> out;
  FS_ASSIGN_OR_RETURN(Statement stmt, db.Prepare("SELECT p.id, p.layer, p.kind, s.tokens, p.seed, MIN(f.first_seen),"
                                                 " MAX(f.last_seen) FROM mined_patterns p"
                                                 " JOIN fingerprints s ON s.hash = p.seed"
                                                 " JOIN fingerprints f ON f.pattern_id = p.id GROUP BY p.id"));
  FS_RETURN_IF_ERROR(ForEachRow(stmt, [&](Statement& r) {
    out[r.ColumnText(0)] = {r.ColumnText(1),  r.ColumnText(2), "", r.ColumnText(4), r.ColumnText(3),
                            r.ColumnInt64(5), r.ColumnInt64(6)};
    return Status::Ok();
  }));
  return out;
}

Result<std::vector<std::string>> HunkLines(Database& db, int64_t hunk_id) {
  FS_ASSIGN_OR_RETURN(Statement stmt, db.Prepare("SELECT lines FROM hunks WHERE id = ?1"));
  stmt.Bind(1, hunk_id);
  FS_ASSIGN_OR_RETURN(bool row, stmt.Step());
  std::vector<std::string> out;
  if (!row) return out;
  for (const auto& line : internal::DecodeHunkLines(stmt.ColumnText(0), 1, 1)) {
    if (out.size() == kExampleLines) break;
    out.push_back(std::string(1, line.origin) + line.text);
  }
  return out;
}

// The representative of a mined pattern: an occurrence of its most frequent fingerprint (the seed's
// on a tie), the first one in fork order. Of a named pattern: its first occurrence.
const Row* Representative(const std::vector<const Row*>& rows, const std::string& seed) {
  std::map<std::string, int> by_hash;
  for (const Row* r : rows) by_hash[r->hash] += 1;
  std::string best;
  for (const auto& [hash, n] : by_hash)
    if (best.empty() || n > by_hash[best] || (n == by_hash[best] && hash == seed)) best = hash;
  for (const Row* r : rows)
    if (r->hash == best) return r;
  return rows.empty() ? nullptr : rows.front();
}

// Named patterns carried by at least half of the given hunks, most common first.
std::vector<std::string> CoNamed(const std::vector<const Row*>& rows,
                                 const std::map<int64_t, std::vector<std::string>>& named_by_hunk) {
  std::map<std::string, int> counts;
  for (const Row* r : rows)
    if (auto it = named_by_hunk.find(r->hunk_id); it != named_by_hunk.end())
      for (const auto& id : it->second) counts[id] += 1;
  std::vector<std::pair<std::string, int>> sorted(counts.begin(), counts.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::string> out;
  for (const auto& [id, n] : sorted)
    if (2 * n >= static_cast<int>(rows.size())) out.push_back(id);
  return out;
}

CataloguePattern Aggregate(const std::string& id, PatternKind kind, const Meta& meta,
                           const std::vector<const Row*>& rows) {
  CataloguePattern p;
  p.id = id;
  p.kind = kind;
  p.layer = meta.layer.empty() && !rows.empty() ? rows.front()->occurrence.layer : meta.layer;
  p.file_kind = meta.file_kind;
  p.description = meta.description;
  p.seed_tokens = meta.seed_tokens;
  p.first_seen = meta.first_seen;
  p.last_seen = meta.last_seen;
  std::map<std::string, int> per_fork;
  for (const Row* r : rows) per_fork[r->occurrence.fork_name] += 1;
  p.total = static_cast<int>(rows.size());
  p.per_fork.assign(per_fork.begin(), per_fork.end());
  std::stable_sort(p.per_fork.begin(), p.per_fork.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return p;
}

}  // namespace

// Both kinds are read in one deferred transaction, so the catalogue is one snapshot.
Result<std::vector<CataloguePattern>> PatternStore::List(const PatternFilter& filter) {
  Transaction snapshot(db_, TransactionMode::kDeferred);
  FS_RETURN_IF_ERROR(snapshot.status());
  FS_ASSIGN_OR_RETURN(std::vector<Row> named_rows, Occurrences(db_, PatternKind::kNamed, ""));
  std::map<int64_t, std::vector<std::string>> named_by_hunk;
  for (const auto& r : named_rows) named_by_hunk[r.hunk_id].push_back(r.occurrence.pattern_id);
  std::vector<CataloguePattern> out;
  for (PatternKind kind : {PatternKind::kNamed, PatternKind::kMined}) {
    if (filter.kind && *filter.kind != kind) continue;
    std::vector<Row> mined_rows;
    if (kind == PatternKind::kMined) {
      FS_ASSIGN_OR_RETURN(mined_rows, Occurrences(db_, kind, ""));
    }
    const std::vector<Row>& rows = kind == PatternKind::kNamed ? named_rows : mined_rows;
    FS_ASSIGN_OR_RETURN(auto meta, kind == PatternKind::kNamed ? NamedMeta(db_) : MinedMeta(db_));
    std::map<std::string, std::vector<const Row*>> by_id;
    for (const auto& r : rows) by_id[r.occurrence.pattern_id].push_back(&r);
    const int min_forks = filter.min_forks.value_or(kind == PatternKind::kMined ? 2 : 1);
    for (const auto& [id, group] : by_id) {
      CataloguePattern p = Aggregate(id, kind, meta[id], group);
      if (p.forks_count() < min_forks || (!filter.layer.empty() && p.layer != filter.layer)) continue;
      if (kind == PatternKind::kMined) p.named = CoNamed(group, named_by_hunk);
      if (const Row* rep = Representative(group, meta[id].seed)) {
        const auto& o = rep->occurrence;
        FS_ASSIGN_OR_RETURN(auto lines, HunkLines(db_, rep->hunk_id));
        p.example = PatternExample{o.fork_name, o.analysis_id, o.path, o.hunk_index, o.new_start, std::move(lines)};
      }
      out.push_back(std::move(p));
    }
  }
  return out;
}

Result<CataloguePattern> PatternStore::Get(const std::string& id) {
  Transaction snapshot(db_, TransactionMode::kDeferred);
  FS_RETURN_IF_ERROR(snapshot.status());
  const PatternKind kind = id.rfind("mined.", 0) == 0 ? PatternKind::kMined : PatternKind::kNamed;
  FS_ASSIGN_OR_RETURN(auto meta, kind == PatternKind::kNamed ? NamedMeta(db_) : MinedMeta(db_));
  FS_ASSIGN_OR_RETURN(std::vector<Row> rows, Occurrences(db_, kind, id));
  auto known = meta.find(id);
  if (known == meta.end() && rows.empty()) return NotFound("no pattern '" + id + "'");
  if (rows.empty() && kind == PatternKind::kNamed) return NotFound("no occurrences of pattern '" + id + "'");
  std::vector<const Row*> group;
  for (const auto& r : rows) group.push_back(&r);
  CataloguePattern p = Aggregate(id, kind, meta[id], group);
  if (kind == PatternKind::kMined) {
    FS_ASSIGN_OR_RETURN(std::vector<Row> named_rows, Occurrences(db_, PatternKind::kNamed, ""));
    std::map<int64_t, std::vector<std::string>> named_by_hunk;
    for (const auto& r : named_rows) named_by_hunk[r.hunk_id].push_back(r.occurrence.pattern_id);
    p.named = CoNamed(group, named_by_hunk);
  }
  if (const Row* rep = Representative(group, meta[id].seed)) {
    const auto& o = rep->occurrence;
    FS_ASSIGN_OR_RETURN(auto lines, HunkLines(db_, rep->hunk_id));
    p.example = PatternExample{o.fork_name, o.analysis_id, o.path, o.hunk_index, o.new_start, std::move(lines)};
  }
  for (const auto& r : rows) p.occurrences.push_back(r.occurrence);
  return p;
}

Result<std::vector<analyzer::ForkProfile>> PatternStore::ForkProfiles() {
  Transaction snapshot(db_, TransactionMode::kDeferred);
  FS_RETURN_IF_ERROR(snapshot.status());
  std::map<std::string, analyzer::ForkProfile> by_fork;
  FS_ASSIGN_OR_RETURN(Statement files, db_.Prepare(std::string(internal::kCurrentAnalyses) +
                                                   "SELECT c.fork, c.analysis_id, fi.layer, COUNT(*) FROM current c"
                                                   " JOIN files fi ON fi.analysis_id = c.analysis_id"
                                                   " GROUP BY c.fork, c.analysis_id, fi.layer"));
  FS_RETURN_IF_ERROR(ForEachRow(files, [&](Statement& r) {
    analyzer::ForkProfile& f = by_fork[r.ColumnText(0)];
    f.fork = r.ColumnText(0);
    f.analysis_id = r.ColumnInt64(1);
    const auto layer = analyzer::LayerFromName(r.ColumnText(2)).value_or(analyzer::Layer::kOther);
    f.files_per_layer[static_cast<size_t>(layer)] += r.ColumnInt(3);
    return Status::Ok();
  }));
  for (PatternKind kind : {PatternKind::kNamed, PatternKind::kMined}) {
    FS_ASSIGN_OR_RETURN(std::vector<Row> rows, Occurrences(db_, kind, ""));
    for (const auto& r : rows) {
      const auto& o = r.occurrence;
      const auto layer = analyzer::LayerFromName(o.layer).value_or(analyzer::Layer::kOther);
      by_fork[o.fork_name].uses.push_back({o.pattern_id, o.path, o.new_start, o.analysis_id, layer});
    }
  }
  std::vector<analyzer::ForkProfile> out;
  for (auto& [name, profile] : by_fork) out.push_back(std::move(profile));
  return out;
}

}  // namespace forkscope::storage
