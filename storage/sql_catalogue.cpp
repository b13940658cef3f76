#include "storage/sql_catalogue.h"

#include <set>

#include "base/log.h"
#include "storage/pattern_sql.h"

namespace forkscope::storage {

using internal::ForEachRow;

Status SqlCatalogue::Prepare() {
  FS_ASSIGN_OR_RETURN(pattern_of_, db_.Prepare("SELECT pattern_id FROM fingerprints WHERE hash = ?1"));
  FS_ASSIGN_OR_RETURN(candidates_,
                      db_.Prepare("SELECT b.hash, f.pattern_id, p.seq, f.tokens FROM fingerprint_buckets b"
                                  " JOIN fingerprints f ON f.hash = b.hash JOIN mined_patterns p ON p.id = f.pattern_id"
                                  " WHERE b.scope = ?1 AND b.band = ?2 AND b.bucket = ?3"));
  FS_ASSIGN_OR_RETURN(add_fp_, db_.Prepare("INSERT INTO fingerprints (hash, pattern_id, layer, kind, tokens, "
                                           "first_seen, last_seen) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)"));
  FS_ASSIGN_OR_RETURN(add_bucket_, db_.Prepare("INSERT OR IGNORE INTO fingerprint_buckets (scope, band, bucket, "
                                               "hash) VALUES (?1, ?2, ?3, ?4)"));
  return Status::Ok();
}

Result<std::optional<std::string>> SqlCatalogue::PatternOf(const std::string& hash) {
  pattern_of_->Bind(1, hash);
  FS_ASSIGN_OR_RETURN(bool row, pattern_of_->Step());
  std::optional<std::string> out;
  if (row) out = pattern_of_->ColumnText(0);
  pattern_of_->Reset();
  return out;
}

Result<std::vector<StoredFingerprint>> SqlCatalogue::Candidates(const std::string& scope,
                                                                const std::vector<uint64_t>& buckets) {
  std::vector<StoredFingerprint> out;
  std::set<std::string> seen;
  for (size_t band = 0; band < buckets.size(); ++band) {
    candidates_->Bind(1, scope).Bind(2, static_cast<int64_t>(band)).Bind(3, static_cast<int64_t>(buckets[band]));
    FS_RETURN_IF_ERROR(ForEachRow(*candidates_, [&](Statement& row) {
      if (seen.insert(row.ColumnText(0)).second)
        out.push_back({row.ColumnText(0), row.ColumnText(1), row.ColumnInt64(2), row.ColumnText(3)});
      return Status::Ok();
    }));
  }
  return out;
}

Status SqlCatalogue::Add(const NewFingerprint& fp, const std::vector<uint64_t>& buckets, const std::string& pattern_id,
                         bool new_pattern) {
  if (new_pattern) {
    FS_ASSIGN_OR_RETURN(Statement add, db_.Prepare("INSERT INTO mined_patterns (id, seq, layer, kind, seed, "
                                                   "created_at) VALUES (?1, (SELECT COALESCE(MAX(seq), 0) + 1 "
                                                   "FROM mined_patterns), ?2, ?3, ?4, ?5)"));
    add.Bind(1, pattern_id).Bind(2, fp.layer).Bind(3, fp.kind).Bind(4, fp.hash).Bind(5, now_);
    FS_RETURN_IF_ERROR(add.Run());
  }
  add_fp_->Bind(1, fp.hash).Bind(2, pattern_id).Bind(3, fp.layer).Bind(4, fp.kind).Bind(5, fp.tokens).Bind(6, seen_at_);
  FS_RETURN_IF_ERROR(add_fp_->Run());
  for (size_t band = 0; band < buckets.size(); ++band) {
    add_bucket_->Bind(1, fp.scope).Bind(2, static_cast<int64_t>(band));
    add_bucket_->Bind(3, static_cast<int64_t>(buckets[band])).Bind(4, fp.hash);
    FS_RETURN_IF_ERROR(add_bucket_->Run());
  }
  return Status::Ok();
}

Status SqlCatalogue::Merge(const std::string& into, const std::string& from) {
  FS_ASSIGN_OR_RETURN(Statement move, db_.Prepare("UPDATE fingerprints SET pattern_id = ?1 WHERE pattern_id = ?2"));
  move.Bind(1, into).Bind(2, from);
  FS_RETURN_IF_ERROR(move.Run());
  FS_ASSIGN_OR_RETURN(Statement drop, db_.Prepare("DELETE FROM mined_patterns WHERE id = ?1"));
  drop.Bind(1, from);
  base::Log(base::LogArea::kStore)->info("patterns merged into={} from={}", into, from);
  return drop.Run();
}

}  // namespace forkscope::storage
