// Renderers of an Analysis (see report.h). The JSON shape is documented field by field in
// docs/analysis-json.md: change both together. Pure functions over values; thread-safe.
#include "analyzer/report.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <sstream>
#include <string_view>
#include <utility>
#include <vector>

namespace forkscope::analyzer {
namespace {

using nlohmann::json;

// ---------------------------------------------------------------------------------------------
// Shared helpers

std::string ShortSha(const std::string& sha) { return sha.substr(0, 7); }

bool IsRenameOrCopy(FileStatus status) { return status == FileStatus::kRenamed || status == FileStatus::kCopied; }

// Totals over the changed files themselves. The per-layer rows come from the classifier and may
// count a file whose hunks span layers once in each of them, so they need not add up to these.
struct Totals {
  int files = 0;
  int hunks = 0;
  int additions = 0;
  int deletions = 0;
};

Totals ComputeTotals(const Analysis& analysis) {
  Totals t;
  t.files = static_cast<int>(analysis.files.size());
  for (const FileChange& f : analysis.files) {
    t.hunks += static_cast<int>(f.hunks.size());
    t.additions += f.additions;
    t.deletions += f.deletions;
  }
  return t;
}

const LayerSummary& SummaryOf(const Analysis& analysis, Layer layer) {
  return analysis.layers[static_cast<size_t>(layer)];
}

// Length of the valid UTF-8 sequence starting at s[i], or 0 when the bytes there are not one.
size_t Utf8SequenceLength(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c == 0xE0) {
    n = 3, lo = 0xA0;
  } else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) {
    n = 3;
  } else if (c == 0xED) {
    n = 3, hi = 0x9F;
  } else if (c == 0xF0) {
    n = 4, lo = 0x90;
  } else if (c >= 0xF1 && c <= 0xF3) {
    n = 4;
  } else if (c == 0xF4) {
    n = 4, hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > s.size() || byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  return n;
}

// Diff text is not always UTF-8 (latin-1 sources, stray bytes); a JSON string must be, or
// dumping the document would throw. Invalid bytes become U+FFFD.
std::string ValidUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const size_t n = Utf8SequenceLength(s, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Time: unix seconds <-> "YYYY-MM-DDTHH:MM:SSZ" (proleptic Gregorian, H. Hinnant's algorithms).

int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

void CivilFromDays(int64_t z, int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y = static_cast<int64_t>(yoe) + era * 400 + (m <= 2);
}

std::string FormatUtc(int64_t unix_seconds) {
  int64_t days = unix_seconds / 86400;
  int64_t secs = unix_seconds % 86400;
  if (secs < 0) secs += 86400, --days;
  int64_t y = 0;
  unsigned m = 0, d = 0;
  CivilFromDays(days, y, m, d);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s%04lld-%02u-%02uT%02d:%02d:%02dZ", y < 0 ? "-" : "",
                static_cast<long long>(y < 0 ? -y : y), m, d, static_cast<int>(secs / 3600),
                static_cast<int>(secs / 60 % 60), static_cast<int>(secs % 60));
  return buf;
}

// Parses exactly what FormatUtc writes (a year of 4 to 11 digits, optionally negative).
std::optional<int64_t> ParseUtc(const std::string& s) {
  const size_t first = (!s.empty() && s[0] == '-') ? 1 : 0;
  const size_t year_end = s.find('-', first);
  if (year_end == std::string::npos || year_end - first < 4 || year_end - first > 11) return std::nullopt;
  if (s.size() != year_end + 16) return std::nullopt;  // "-MM-DDTHH:MM:SSZ"
  const std::string_view pattern = "-dd-ddTdd:dd:ddZ";
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool digit = c >= '0' && c <= '9';
    if (i < first) continue;
    if (i < year_end ? !digit : (pattern[i - year_end] == 'd' ? !digit : c != pattern[i - year_end]))
      return std::nullopt;
  }
  const auto num = [&](size_t pos, size_t len) { return std::stoll(s.substr(pos, len)); };
  int64_t y = num(first, year_end - first);
  if (first) y = -y;
  const auto m = static_cast<unsigned>(num(year_end + 1, 2));
  const auto d = static_cast<unsigned>(num(year_end + 4, 2));
  const int64_t hh = num(year_end + 7, 2), mm = num(year_end + 10, 2), ss = num(year_end + 13, 2);
  if (m < 1 || m > 12 || d < 1 || d > 31 || hh > 23 || mm > 59 || ss > 59) return std::nullopt;
  const int64_t days = DaysFromCivil(y, m, d);
  int64_t yy = 0;
  unsigned mo = 0, dd = 0;
  CivilFromDays(days, yy, mo, dd);
  if (yy != y || mo != m || dd != d) return std::nullopt;  // e.g. February 30th
  return days * 86400 + hh * 3600 + mm * 60 + ss;
}

// ---------------------------------------------------------------------------------------------
// AnalysisToJson

json Str(const std::string& s) { return ValidUtf8(s); }
json NullIfEmpty(const std::string& s) { return s.empty() ? json(nullptr) : Str(s); }

json StringArray(const std::vector<std::string>& values) {
  json arr = json::array();
  for (const std::string& v : values) arr.push_back(Str(v));
  return arr;
}

json RefToJson(const RefInfo& ref) {
  json j = json::object();
  j["url"] = Str(ref.url);
  j["branch"] = Str(ref.branch);
  j["sha"] = Str(ref.sha);
  return j;
}

json HunkToJson(const Hunk& hunk, bool with_lines) {
  json j = json::object();
  j["old_start"] = hunk.old_start;
  j["old_lines"] = hunk.old_lines;
  j["new_start"] = hunk.new_start;
  j["new_lines"] = hunk.new_lines;
  j["header"] = Str(hunk.header);
  j["layer"] = LayerName(hunk.layer);
  j["context"] = Str(hunk.context);
  j["patterns"] = StringArray(hunk.patterns);
  j["violations"] = StringArray(hunk.violations);
  if (with_lines) {
    json lines = json::array();
    for (const DiffLine& line : hunk.lines) lines.push_back(ValidUtf8(std::string(1, line.origin) + line.text));
    j["lines"] = std::move(lines);
  }
  return j;
}

json FileToJson(const FileChange& file, bool with_lines) {
  const bool renamed = IsRenameOrCopy(file.status);
  json j = json::object();
  j["path"] = Str(file.path);
  j["old_path"] = renamed ? NullIfEmpty(file.old_path) : json(nullptr);
  j["status"] = FileStatusName(file.status);
  j["layer"] = LayerName(file.layer);
  j["path_layer"] = LayerName(file.path_layer);
  j["binary"] = file.binary;
  j["truncated"] = file.truncated;
  j["similarity"] = renamed ? json(file.similarity) : json(nullptr);
  j["moved_from"] = NullIfEmpty(file.moved_from);
  j["additions"] = file.additions;
  j["deletions"] = file.deletions;
  json hunks = json::array();
  for (const Hunk& h : file.hunks) hunks.push_back(HunkToJson(h, with_lines));
  j["hunks"] = std::move(hunks);
  return j;
}

json SummaryToJson(const Analysis& analysis) {
  json layers = json::object();
  for (Layer layer : kAllLayers) {
    const LayerSummary& s = SummaryOf(analysis, layer);
    layers[LayerName(layer)] = {{"files", s.files}, {"hunks", s.hunks}, {"additions", s.additions},
                                {"deletions", s.deletions}};
  }
  const Totals t = ComputeTotals(analysis);
  json j = json::object();
  j["layers"] = std::move(layers);
  j["files"] = t.files;
  j["hunks"] = t.hunks;
  j["additions"] = t.additions;
  j["deletions"] = t.deletions;
  return j;
}

json CompatGapToJson(const CompatGap& gap) {
  json j = json::object();
  j["path"] = NullIfEmpty(gap.path);
  j["line"] = gap.line;
  j["api"] = NullIfEmpty(gap.api);
  j["bridge"] = NullIfEmpty(gap.bridge);
  j["scope"] = NullIfEmpty(gap.scope);
  j["removal"] = NullIfEmpty(gap.removal);
  j["issue"] = NullIfEmpty(gap.issue);
  j["reproduction"] = NullIfEmpty(gap.reproduction);
  j["origin"] = NullIfEmpty(gap.origin);
  j["forwarded"] = NullIfEmpty(gap.forwarded);
  j["applied_upstream"] = NullIfEmpty(gap.applied_upstream);
  return j;
}

void FindingsToJson(const Analysis& analysis, json& doc) {
  json& patterns = doc["patterns"] = json::array();
  for (const PatternCount& p : analysis.patterns)
    patterns.push_back({{"id", Str(p.id)}, {"layer", LayerName(p.layer)}, {"description", Str(p.description)},
                        {"count", p.count}});
  json& violations = doc["violations"] = json::array();
  for (const Violation& v : analysis.violations)
    violations.push_back({{"rule", Str(v.rule)}, {"path", Str(v.path)}, {"line", v.line}, {"message", Str(v.message)}});
  json& gaps = doc["compat_gaps"] = json::array();
  for (const CompatGap& g : analysis.compat_gaps) gaps.push_back(CompatGapToJson(g));
  json& moves = doc["moves"] = json::array();
  for (const TreeMove& m : analysis.moves)
    moves.push_back({{"kind", Str(m.kind)}, {"from", Str(m.from)}, {"to", Str(m.to)}, {"files", m.files},
                     {"verbatim", m.verbatim}, {"adapted", m.adapted}});
}

// ---------------------------------------------------------------------------------------------
// AnalysisFromJson: every reader names the offending key by its path ("files[2].hunks[0].layer").

std::string KeyPath(const std::string& where, const std::string& key) {
  return where.empty() ? key : where + "." + key;
}
std::string IndexPath(const std::string& where, size_t i) { return where + "[" + std::to_string(i) + "]"; }

Status Missing(const std::string& name) { return InvalidArgument("analysis json: missing key '" + name + "'"); }
Status IllTyped(const std::string& name, const std::string& want) {
  return InvalidArgument("analysis json: key '" + name + "' must be " + want);
}

// Looks up obj[key] (obj is known to be an object); a missing key is an error unless optional.
Status Find(const json& obj, const std::string& where, const std::string& key, const json*& out,
            bool optional = false) {
  const auto it = obj.find(key);
  if (it == obj.end()) {
    out = nullptr;
    return optional ? Status::Ok() : Missing(KeyPath(where, key));
  }
  out = &*it;
  return Status::Ok();
}

Status ReadString(const json& obj, const std::string& where, const std::string& key, std::string& out) {
  const json* v = nullptr;
  FS_RETURN_IF_ERROR(Find(obj, where, key, v));
  if (!v->is_string()) return IllTyped(KeyPath(where, key), "a string");
  out = v->get<std::string>();
  return Status::Ok();
}

// A string that may be null or absent (read as "").
Status ReadNullableString(const json& obj, const std::string& where, const std::string& key, std::string& out) {
  const json* v = nullptr;
  FS_RETURN_IF_ERROR(Find(obj, where, key, v, /*optional=*/true));
  out.clear();
  if (v == nullptr || v->is_null()) return Status::Ok();
  if (!v->is_string()) return IllTyped(KeyPath(where, key), "a string or null");
  out = v->get<std::string>();
  return Status::Ok();
}

Status ReadInt64(const json& obj, const std::string& where, const std::string& key, int64_t& out) {
  const json* v = nullptr;
  FS_RETURN_IF_ERROR(Find(obj, where, key, v));
  if (v->is_number_unsigned() && v->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    return IllTyped(KeyPath(where, key), "a 64-bit signed integer");
  if (!v->is_number_integer()) return IllTyped(KeyPath(where, key), "an integer");
  out = v->get<int64_t>();
  return Status::Ok();
}

Status ReadInt(const json& obj, const std::string& where, const std::string& key, int& out) {
  int64_t wide = 0;
  FS_RETURN_IF_ERROR(ReadInt64(obj, where, key, wide));
  if (wide < std::numeric_limits<int>::min() || wide > std::numeric_limits<int>::max())
    return IllTyped(KeyPath(where, key), "a 32-bit integer");
  out = static_cast<int>(wide);
  return Status::Ok();
}

Status ReadBool(const json& obj, const std::string& where, const std::string& key, bool& out) {
  const json* v = nullptr;
  FS_RETURN_IF_ERROR(Find(obj, where, key, v));
  if (!v->is_boolean()) return IllTyped(KeyPath(where, key), "a boolean");
  out = v->get<bool>();
  return Status::Ok();
}

Status ReadLayer(const json& obj, const std::string& where, const std::string& key, Layer& out) {
  std::string name;
  FS_RETURN_IF_ERROR(ReadString(obj, where, key, name));
  const std::optional<Layer> layer = LayerFromName(name);
  if (!layer) return IllTyped(KeyPath(where, key), "one of kernel, build, cpp_compat, python, other");
  out = *layer;
  return Status::Ok();
}

Status ReadTyped(const json& obj, const std::string& where, const std::string& key, bool want_array,
                 const json*& out) {
  FS_RETURN_IF_ERROR(Find(obj, where, key, out));
  if (want_array && !out->is_array()) return IllTyped(KeyPath(where, key), "an array");
  if (!want_array && !out->is_object()) return IllTyped(KeyPath(where, key), "an object");
  return Status::Ok();
}

Status ReadStringArray(const json& obj, const std::string& where, const std::string& key,
                       std::vector<std::string>& out) {
  const json* arr = nullptr;
  FS_RETURN_IF_ERROR(ReadTyped(obj, where, key, /*want_array=*/true, arr));
  out.clear();
  for (size_t i = 0; i < arr->size(); ++i) {
    if (!(*arr)[i].is_string()) return IllTyped(IndexPath(KeyPath(where, key), i), "a string");
    out.push_back((*arr)[i].get<std::string>());
  }
  return Status::Ok();
}

// Calls read(element, element_path) for every element of obj[key], which must be objects.
template <typename ReadElement>
Status ForEachObject(const json& obj, const std::string& where, const std::string& key, ReadElement read) {
  const json* arr = nullptr;
  FS_RETURN_IF_ERROR(ReadTyped(obj, where, key, /*want_array=*/true, arr));
  for (size_t i = 0; i < arr->size(); ++i) {
    const std::string path = IndexPath(KeyPath(where, key), i);
    if (!(*arr)[i].is_object()) return IllTyped(path, "an object");
    FS_RETURN_IF_ERROR(read((*arr)[i], path));
  }
  return Status::Ok();
}

Status ReadRef(const json& doc, const std::string& key, RefInfo& ref) {
  const json* obj = nullptr;
  FS_RETURN_IF_ERROR(ReadTyped(doc, "", key, /*want_array=*/false, obj));
  FS_RETURN_IF_ERROR(ReadString(*obj, key, "url", ref.url));
  FS_RETURN_IF_ERROR(ReadString(*obj, key, "branch", ref.branch));
  return ReadString(*obj, key, "sha", ref.sha);
}

// Restores the lines of a hunk; line numbers are recomputed from the hunk's starts.
Status ReadLines(const json& arr, const std::string& where, Hunk& hunk) {
  int old_lineno = hunk.old_start, new_lineno = hunk.new_start;
  for (size_t i = 0; i < arr.size(); ++i) {
    const json& v = arr[i];
    const bool ok = v.is_string() && !v.get_ref<const std::string&>().empty() &&
                    std::string_view("+- ").find(v.get_ref<const std::string&>()[0]) != std::string_view::npos;
    if (!ok) return IllTyped(IndexPath(where, i), "a string starting with '+', '-' or ' '");
    const std::string& s = v.get_ref<const std::string&>();
    DiffLine line;
    line.origin = s[0];
    line.text = s.substr(1);
    if (line.origin != '+') line.old_lineno = old_lineno++;
    if (line.origin != '-') line.new_lineno = new_lineno++;
    hunk.lines.push_back(std::move(line));
  }
  return Status::Ok();
}

Status ReadHunk(const json& obj, const std::string& where, Hunk& hunk) {
  FS_RETURN_IF_ERROR(ReadInt(obj, where, "old_start", hunk.old_start));
  FS_RETURN_IF_ERROR(ReadInt(obj, where, "old_lines", hunk.old_lines));
  FS_RETURN_IF_ERROR(ReadInt(obj, where, "new_start", hunk.new_start));
  FS_RETURN_IF_ERROR(ReadInt(obj, where, "new_lines", hunk.new_lines));
  FS_RETURN_IF_ERROR(ReadString(obj, where, "header", hunk.header));
  FS_RETURN_IF_ERROR(ReadLayer(obj, where, "layer", hunk.layer));
  FS_RETURN_IF_ERROR(ReadString(obj, where, "context", hunk.context));
  FS_RETURN_IF_ERROR(ReadStringArray(obj, where, "patterns", hunk.patterns));
  FS_RETURN_IF_ERROR(ReadStringArray(obj, where, "violations", hunk.violations));
  const json* lines = nullptr;
  FS_RETURN_IF_ERROR(Find(obj, where, "lines", lines, /*optional=*/true));
  if (lines == nullptr) return Status::Ok();
  if (!lines->is_array()) return IllTyped(KeyPath(where, "lines"), "an array");
  return ReadLines(*lines, KeyPath(where, "lines"), hunk);
}

Status ReadFile(const json& obj, const std::string& where, FileChange& file) {
  FS_RETURN_IF_ERROR(ReadString(obj, where, "path", file.path));
  std::string status;
  FS_RETURN_IF_ERROR(ReadString(obj, where, "status", status));
  const std::optional<FileStatus> parsed = FileStatusFromName(status);
  if (!parsed) return IllTyped(KeyPath(where, "status"), "one of added, modified, deleted, renamed, copied");
  file.status = *parsed;
  FS_RETURN_IF_ERROR(ReadNullableString(obj, where, "old_path", file.old_path));
  FS_RETURN_IF_ERROR(ReadLayer(obj, where, "layer", file.layer));
  FS_RETURN_IF_ERROR(ReadLayer(obj, where, "path_layer", file.path_layer));
  FS_RETURN_IF_ERROR(ReadBool(obj, where, "binary", file.binary));
  FS_RETURN_IF_ERROR(ReadBool(obj, where, "truncated", file.truncated));
  const json* similarity = nullptr;
  FS_RETURN_IF_ERROR(Find(obj, where, "similarity", similarity, /*optional=*/true));
  if (similarity != nullptr && !similarity->is_null())
    FS_RETURN_IF_ERROR(ReadInt(obj, where, "similarity", file.similarity));
  FS_RETURN_IF_ERROR(ReadNullableString(obj, where, "moved_from", file.moved_from));
  FS_RETURN_IF_ERROR(ReadInt(obj, where, "additions", file.additions));
  FS_RETURN_IF_ERROR(ReadInt(obj, where, "deletions", file.deletions));
  return ForEachObject(obj, where, "hunks", [&](const json& h, const std::string& path) {
    file.hunks.emplace_back();
    return ReadHunk(h, path, file.hunks.back());
  });
}

Status ReadSummary(const json& doc, Analysis& analysis) {
  const json* summary = nullptr;
  const json* layers = nullptr;
  FS_RETURN_IF_ERROR(ReadTyped(doc, "", "summary", /*want_array=*/false, summary));
  FS_RETURN_IF_ERROR(ReadTyped(*summary, "summary", "layers", /*want_array=*/false, layers));
  for (Layer layer : kAllLayers) {
    const json* row = nullptr;
    FS_RETURN_IF_ERROR(ReadTyped(*layers, "summary.layers", LayerName(layer), /*want_array=*/false, row));
    const std::string where = std::string("summary.layers.") + LayerName(layer);
    LayerSummary& s = analysis.layers[static_cast<size_t>(layer)];
    FS_RETURN_IF_ERROR(ReadInt(*row, where, "files", s.files));
    FS_RETURN_IF_ERROR(ReadInt(*row, where, "hunks", s.hunks));
    FS_RETURN_IF_ERROR(ReadInt(*row, where, "additions", s.additions));
    FS_RETURN_IF_ERROR(ReadInt(*row, where, "deletions", s.deletions));
  }
  return Status::Ok();  // the totals are derived from files[] and not read back
}

Status ReadHeader(const json& doc, Analysis& a) {
  FS_RETURN_IF_ERROR(ReadRef(doc, "fork", a.fork));
  FS_RETURN_IF_ERROR(ReadRef(doc, "upstream", a.upstream));
  const json* upstream = nullptr;
  FS_RETURN_IF_ERROR(Find(doc, "", "upstream", upstream));
  FS_RETURN_IF_ERROR(ReadNullableString(*upstream, "upstream", "branch_choice", a.upstream_branch_choice));
  FS_RETURN_IF_ERROR(ReadNullableString(doc, "", "merge_base", a.merge_base));
  FS_RETURN_IF_ERROR(ReadNullableString(doc, "", "base_source", a.base_source));
  const json* distance = nullptr;
  FS_RETURN_IF_ERROR(Find(doc, "", "base_distance", distance, /*optional=*/true));
  if (distance != nullptr && !distance->is_null()) {
    if (!distance->is_object()) return IllTyped("base_distance", "an object or null");
    BaseDistance d;
    FS_RETURN_IF_ERROR(ReadInt(*distance, "base_distance", "files", d.files));
    FS_RETURN_IF_ERROR(ReadInt(*distance, "base_distance", "lines", d.lines));
    FS_RETURN_IF_ERROR(ReadInt(*distance, "base_distance", "commits_scanned", d.commits_scanned));
    a.base_distance = d;
  }
  FS_RETURN_IF_ERROR(ReadInt(doc, "", "ahead", a.ahead));
  FS_RETURN_IF_ERROR(ReadInt(doc, "", "behind", a.behind));
  std::string style;
  FS_RETURN_IF_ERROR(ReadString(doc, "", "style", style));
  const auto styles = {MigrationStyle::kCompat, MigrationStyle::kNative, MigrationStyle::kNone};
  const auto it = std::find_if(styles.begin(), styles.end(),
                               [&](MigrationStyle s) { return style == MigrationStyleName(s); });
  if (it == styles.end()) return IllTyped("style", "one of compat, native, none");
  a.style = *it;
  FS_RETURN_IF_ERROR(ReadBool(doc, "", "cached", a.cached));
  FS_RETURN_IF_ERROR(ReadString(doc, "", "rules_version", a.rules_version));
  std::string created_at;
  FS_RETURN_IF_ERROR(ReadString(doc, "", "created_at", created_at));
  const std::optional<int64_t> when = ParseUtc(created_at);
  if (!when) return IllTyped("created_at", "an ISO-8601 UTC time like 2024-05-01T12:00:00Z");
  a.created_at = *when;
  return ReadInt64(doc, "", "duration_ms", a.duration_ms);
}

Status ReadFindings(const json& doc, Analysis& a) {
  FS_RETURN_IF_ERROR(ForEachObject(doc, "", "patterns", [&](const json& o, const std::string& at) {
    PatternCount& p = a.patterns.emplace_back();
    FS_RETURN_IF_ERROR(ReadString(o, at, "id", p.id));
    FS_RETURN_IF_ERROR(ReadLayer(o, at, "layer", p.layer));
    FS_RETURN_IF_ERROR(ReadString(o, at, "description", p.description));
    return ReadInt(o, at, "count", p.count);
  }));
  FS_RETURN_IF_ERROR(ForEachObject(doc, "", "violations", [&](const json& o, const std::string& at) {
    Violation& v = a.violations.emplace_back();
    FS_RETURN_IF_ERROR(ReadString(o, at, "rule", v.rule));
    FS_RETURN_IF_ERROR(ReadString(o, at, "path", v.path));
    FS_RETURN_IF_ERROR(ReadInt(o, at, "line", v.line));
    return ReadString(o, at, "message", v.message);
  }));
  FS_RETURN_IF_ERROR(ForEachObject(doc, "", "compat_gaps", [&](const json& o, const std::string& at) {
    CompatGap& g = a.compat_gaps.emplace_back();
    FS_RETURN_IF_ERROR(ReadInt(o, at, "line", g.line));
    const std::pair<const char*, std::string*> fields[] = {
        {"path", &g.path},     {"api", &g.api},       {"bridge", &g.bridge},
        {"scope", &g.scope},   {"removal", &g.removal}, {"issue", &g.issue}, {"reproduction", &g.reproduction},
        {"origin", &g.origin}, {"forwarded", &g.forwarded}, {"applied_upstream", &g.applied_upstream}};
    for (const auto& [key, field] : fields) FS_RETURN_IF_ERROR(ReadNullableString(o, at, key, *field));
    return Status::Ok();
  }));
  return ForEachObject(doc, "", "moves", [&](const json& o, const std::string& at) {
    TreeMove& m = a.moves.emplace_back();
    FS_RETURN_IF_ERROR(ReadString(o, at, "kind", m.kind));
    FS_RETURN_IF_ERROR(ReadString(o, at, "from", m.from));
    FS_RETURN_IF_ERROR(ReadString(o, at, "to", m.to));
    FS_RETURN_IF_ERROR(ReadInt(o, at, "files", m.files));
    FS_RETURN_IF_ERROR(ReadInt(o, at, "verbatim", m.verbatim));
    return ReadInt(o, at, "adapted", m.adapted);
  });
}

Status ReadAnalysis(const json& doc, Analysis& a) {
  if (!doc.is_object()) return InvalidArgument("analysis json: the document must be an object");
  FS_RETURN_IF_ERROR(ReadHeader(doc, a));
  FS_RETURN_IF_ERROR(ReadSummary(doc, a));
  FS_RETURN_IF_ERROR(ForEachObject(doc, "", "files", [&](const json& o, const std::string& at) {
    a.files.emplace_back();
    return ReadFile(o, at, a.files.back());
  }));
  FS_RETURN_IF_ERROR(ReadFindings(doc, a));
  FS_RETURN_IF_ERROR(ReadStringArray(doc, "", "notices", a.notices));
  return ReadStringArray(doc, "", "migration_branches", a.migration_branches);
}

}  // namespace

nlohmann::json AnalysisToJson(const Analysis& analysis, bool with_lines) {
  json doc = json::object();
  doc["fork"] = RefToJson(analysis.fork);
  doc["upstream"] = RefToJson(analysis.upstream);
  doc["upstream"]["branch_choice"] = NullIfEmpty(analysis.upstream_branch_choice);
  doc["merge_base"] = NullIfEmpty(analysis.merge_base);
  doc["base_source"] = NullIfEmpty(analysis.base_source);
  doc["base_distance"] = nullptr;
  if (analysis.base_distance)
    doc["base_distance"] = {{"files", analysis.base_distance->files},
                            {"lines", analysis.base_distance->lines},
                            {"commits_scanned", analysis.base_distance->commits_scanned}};
  doc["ahead"] = analysis.ahead;
  doc["behind"] = analysis.behind;
  doc["style"] = MigrationStyleName(analysis.style);
  doc["cached"] = analysis.cached;
  doc["rules_version"] = Str(analysis.rules_version);
  doc["created_at"] = FormatUtc(analysis.created_at);
  doc["duration_ms"] = analysis.duration_ms;
  doc["summary"] = SummaryToJson(analysis);
  json files = json::array();
  for (const FileChange& f : analysis.files) files.push_back(FileToJson(f, with_lines));
  doc["files"] = std::move(files);
  FindingsToJson(analysis, doc);
  doc["notices"] = StringArray(analysis.notices);
  doc["migration_branches"] = StringArray(analysis.migration_branches);
  return doc;
}

Result<Analysis> AnalysisFromJson(const nlohmann::json& doc) {
  // The readers check every key and type first; the catch only guards against a missed case.
  try {
    Analysis analysis;
    FS_RETURN_IF_ERROR(ReadAnalysis(doc, analysis));
    return analysis;
  } catch (const std::exception& e) {
    return InvalidArgument(std::string("analysis json: ") + e.what());
  }
}

// ---------------------------------------------------------------------------------------------
// Markdown and text

namespace {

const char* LayerMeaning(Layer layer) {
  switch (layer) {
    case Layer::kKernel: return "framework-independent kernels and algorithms";
    case Layer::kBuild: return "build and packaging";
    case Layer::kCppCompat: return "C++ compat API and operator registration";
    case Layer::kPython: return "Python wrappers, runtime glue and tests";
    case Layer::kOther: return "docs, licences, assets, editor config";
  }
  return "";
}

std::string LayerTitle(Layer layer) { return std::string(LayerName(layer)) + " — " + LayerMeaning(layer); }

// Drops "user:token@" from a URL: reports get pasted into public pull requests.
std::string StripCredentials(const std::string& url) {
  const size_t scheme = url.find("://");
  if (scheme == std::string::npos) return url;
  const size_t host = scheme + 3;
  const size_t at = url.find('@', host);
  const size_t slash = url.find('/', host);
  if (at == std::string::npos || (slash != std::string::npos && at > slash)) return url;
  return url.substr(0, host) + url.substr(at + 1);
}

// "https://github.com/PFCCLab/flashinfer.git" -> "PFCCLab/flashinfer"; other hosts keep the host.
std::string RepoName(const std::string& url) {
  std::string name = StripCredentials(url);
  const size_t scheme = name.find("://");
  if (scheme != std::string::npos) {
    name = name.substr(scheme + 3);
  } else if (const size_t at = name.find('@'), colon = name.find(':');
             colon != std::string::npos && at < colon && name.find('/') > colon) {
    name[colon] = '/';  // scp-like git@host:owner/repo
    name = name.substr(at + 1);
  }
  if (name.rfind("github.com/", 0) == 0) name = name.substr(11);
  while (!name.empty() && name.back() == '/') name.pop_back();
  if (name.size() > 4 && name.compare(name.size() - 4, 4, ".git") == 0) name.resize(name.size() - 4);
  return name.empty() ? url : name;
}

// One table cell: '|' escaped, line breaks folded.
std::string Cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n' || c == '\r') out += ' ';
    else out += c;
  }
  return out;
}

std::string Code(std::string_view text) {
  if (text.empty()) return "—";
  const bool has_tick = text.find('`') != std::string_view::npos;
  return has_tick ? "`` " + std::string(text) + " ``" : "`" + std::string(text) + "`";
}

std::string OrDash(const std::string& s) { return s.empty() ? "—" : s; }

std::string Plural(int n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string FileName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool IsTestFile(const FileChange& f) {
  if (f.status == FileStatus::kDeleted || !EndsWith(f.path, ".py")) return false;
  const std::string name = FileName(f.path);
  return name.rfind("test_", 0) == 0 || EndsWith(name, "_test.py");
}

std::vector<std::string> ChangedTests(const Analysis& a) {
  std::vector<std::string> tests;
  for (const FileChange& f : a.files)
    if (IsTestFile(f)) tests.push_back(f.path);
  return tests;
}

bool IsIdentifier(const std::string& s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// The top-level Python package most changed .py files live in ("python/" and "src/" layouts too).
std::optional<std::string> GuessPackage(const Analysis& a) {
  static const std::vector<std::string> kNotPackages = {
      "tests", "test", "examples", "example", "benchmarks", "benchmark", "docs", "doc", "scripts",
      "tools", "ci", "csrc", "build", "third_party", "3rdparty", "setup", "conftest"};
  std::vector<std::pair<std::string, int>> counts;  // in order of first appearance
  for (const FileChange& f : a.files) {
    if (f.status == FileStatus::kDeleted || !EndsWith(f.path, ".py") || IsTestFile(f)) continue;
    std::string_view path = f.path;
    if (path.rfind("python/", 0) == 0 || path.rfind("src/", 0) == 0) path.remove_prefix(path.find('/') + 1);
    const size_t slash = path.find('/');
    if (slash == std::string_view::npos) continue;  // a top-level script, not a package
    const std::string top(path.substr(0, slash));
    if (!IsIdentifier(top) || std::find(kNotPackages.begin(), kNotPackages.end(), top) != kNotPackages.end())
      continue;
    auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == top; });
    if (it == counts.end()) counts.emplace_back(top, 1);
    else ++it->second;
  }
  if (counts.empty()) return std::nullopt;
  return std::max_element(counts.begin(), counts.end(),
                          [](const auto& x, const auto& y) { return x.second < y.second; })->first;
}

// The build command of the validation path, from the build files the fork changed.
std::string BuildStep(const Analysis& a) {
  std::string nested_setup;
  bool setup_ops = false, pyproject = false, cmake = false;
  for (const FileChange& f : a.files) {
    if (f.status == FileStatus::kDeleted) continue;
    if (f.path == "setup.py")
      return "`pip install -e . --no-build-isolation` (or `python setup.py build_ext --inplace`); "
             "`setup.py` changed, and a build that calls `paddle.enable_compat()` needs Paddle in the "
             "build environment, hence no build isolation";
    if (FileName(f.path) == "setup_ops.py") setup_ops = true;
    if (f.path == "pyproject.toml") pyproject = true;
    if (f.path == "CMakeLists.txt") cmake = true;
    if (nested_setup.empty() && EndsWith(f.path, "/setup.py")) nested_setup = f.path;
  }
  if (setup_ops) return "`python setup_ops.py install` (Paddle custom-op build script)";
  if (pyproject) return "`pip install -e . --no-build-isolation` (`pyproject.toml` changed)";
  if (!nested_setup.empty())
    return "`cd " + nested_setup.substr(0, nested_setup.size() - 9) +
           " && pip install -e . --no-build-isolation` (`" + nested_setup + "` changed)";
  if (cmake) return "`cmake -S . -B build && cmake --build build` (`CMakeLists.txt` changed)";
  return "build the package the way upstream documents it, in an environment with Paddle installed "
         "(for a Python package: `pip install -e . --no-build-isolation`)";
}

std::string ImportStep(const Analysis& a) {
  const std::optional<std::string> package = GuessPackage(a);
  const std::string name = package.value_or("<package>");
  std::string step;
  if (a.style == MigrationStyle::kCompat)
    step = "`python -c \"import paddle; paddle.enable_compat(scope={'" + name + "'}); import " + name +
           "\"` (the torch proxy limited to the package, as at run time)";
  else
    step = "`python -c \"import " + name + "\"`";
  if (!package) step += " — replace `<package>` with the library's import name";
  return step;
}

std::string TestCommand(const std::vector<std::string>& tests) {
  std::string cmd = "pytest";
  for (size_t i = 0; i < tests.size() && i < 3; ++i) cmd += " " + tests[i];
  return cmd + " -x";
}

void RenderValidation(const Analysis& a, std::ostringstream& md) {
  const std::vector<std::string> tests = ChangedTests(a);
  md << "## Validation path\n\n"
     << "The guide's shortest path; at least one minimal build and test must pass.\n\n"
     << "- [ ] **1. Build**: " << BuildStep(a) << "\n"
     << "- [ ] **2. Import**: " << ImportStep(a) << "\n";
  md << "- [ ] **3. Minimal functional test**: ";
  if (tests.empty()) {
    md << "no test file changed; run the smallest upstream test that exercises a changed op "
          "(e.g. `pytest tests -x -k <op>`)\n";
  } else {
    md << "`" << TestCommand(tests) << "`";
    if (tests.size() > 3) md << " (" << tests.size() - 3 << " more changed test files)";
    md << "\n";
  }
  const std::string base = a.merge_base.empty() ? a.upstream.sha : a.merge_base;
  md << "- [ ] **4. Runtime comparison against upstream**: run "
     << (tests.empty() ? std::string("the same test") : "`" + TestCommand(tests) + "`")
     << " under upstream torch (upstream at " << Code(ShortSha(base))
     << ") and under this fork with Paddle; compare outputs call by call and report the first "
        "diverging call (file:line, call site, layer)\n\n";
}

std::string BaseDescription(const Analysis& a) {
  std::string s = OrDash(a.base_source);
  if (a.base_source == "merge-base") s += " (common history)";
  if (a.base_source == "searched") s += " (closest upstream tree; no shared history)";
  if (a.base_distance)
    s += "; distance " + Plural(a.base_distance->files, "file", "files") + ", " +
         Plural(a.base_distance->lines, "line", "lines") + ", " +
         Plural(a.base_distance->commits_scanned, "commit scanned", "commits scanned");
  return s;
}

std::string StyleDescription(MigrationStyle style) {
  switch (style) {
    case MigrationStyle::kCompat: return "compat (Paddle's torch compatibility layer)";
    case MigrationStyle::kNative: return "native (ported to Paddle's own custom-op API)";
    case MigrationStyle::kNone: return "none (no Paddle migration found)";
  }
  return "none";
}

std::string RefCell(const RefInfo& ref, const std::string& choice) {
  std::string s = StripCredentials(ref.url) + " — branch " + Code(ref.branch);
  if (choice == "given") s += " (given)";
  if (choice == "default") s += " (upstream default branch)";
  if (choice == "auto") s += " (chosen automatically)";
  return s + " at " + Code(ShortSha(ref.sha));
}

void RenderHeader(const Analysis& a, std::ostringstream& md) {
  md << "# Paddle migration: " << RepoName(a.fork.url) << "@" << a.fork.branch << " → "
     << RepoName(a.upstream.url) << "@" << a.upstream.branch << "\n\n"
     << "| | |\n|---|---|\n"
     << "| Fork | " << Cell(RefCell(a.fork, "")) << " |\n"
     << "| Upstream | " << Cell(RefCell(a.upstream, a.upstream_branch_choice)) << " |\n"
     << "| Merge-base | " << Cell(Code(ShortSha(a.merge_base))) << " |\n"
     << "| Base source | " << Cell(BaseDescription(a)) << " |\n"
     << "| Ahead / behind | " << a.ahead << " ahead, " << a.behind << " behind |\n"
     << "| Migration style | " << StyleDescription(a.style) << " |\n"
     << "| Rules version | " << Cell(Code(a.rules_version)) << " |\n"
     << "| Cached | " << (a.cached ? "yes" : "no") << " |\n"
     << "| Analysed | " << FormatUtc(a.created_at) << " in " << a.duration_ms << " ms |\n";
  if (!a.migration_branches.empty()) {
    std::string branches;
    for (const std::string& b : a.migration_branches) branches += (branches.empty() ? "" : ", ") + Code(b);
    md << "| Migration branches | " << Cell(branches) << " |\n";
  }
  md << "\n";
}

std::string FilePathCell(const FileChange& f) {
  std::string s = IsRenameOrCopy(f.status) && !f.old_path.empty() ? Code(f.old_path) + " → " + Code(f.path)
                                                                  : Code(f.path);
  if (!f.moved_from.empty()) s += " (moved from " + Code(f.moved_from) + ")";
  if (f.truncated) s += " (diff truncated)";
  return Cell(s);
}

std::string FileStatusCell(const FileChange& f) {
  std::string s = FileStatusName(f.status);
  if (IsRenameOrCopy(f.status)) s += " (" + std::to_string(f.similarity) + "%)";
  return s;
}

std::string FilePatternsCell(const FileChange& f) {
  std::vector<std::string> ids;
  for (const Hunk& h : f.hunks)
    for (const std::string& p : h.patterns)
      if (std::find(ids.begin(), ids.end(), p) == ids.end()) ids.push_back(p);
  std::string s;
  for (const std::string& id : ids) s += (s.empty() ? "" : ", ") + Code(id);
  return s.empty() ? "—" : Cell(s);
}

void RenderFilesByLayer(const Analysis& a, std::ostringstream& md) {
  md << "## Changed files by layer\n\n"
     << Plural(static_cast<int>(a.files.size()), "file", "files") << " changed; everything else matches upstream at "
     << Code(ShortSha(a.merge_base.empty() ? a.upstream.sha : a.merge_base)) << ".\n\n";
  for (Layer layer : kAllLayers) {
    md << "### " << LayerTitle(layer) << "\n\n";
    std::vector<const FileChange*> files;
    for (const FileChange& f : a.files)
      if (f.layer == layer) files.push_back(&f);
    if (files.empty()) {
      md << "No changes.\n\n";
      continue;
    }
    if (layer == Layer::kKernel) md << "Kernel changes are rarely needed by a migration; each deserves a stated reason.\n\n";
    md << "| Path | Status | +/− | Patterns |\n|---|---|---|---|\n";
    for (const FileChange* f : files)
      md << "| " << FilePathCell(*f) << " | " << FileStatusCell(*f) << " | "
         << (f->binary ? std::string("binary") : "+" + std::to_string(f->additions) + " / −" + std::to_string(f->deletions))
         << " | " << FilePatternsCell(*f) << " |\n";
    md << "\n";
  }
}

void RenderLayerSummary(const Analysis& a, std::ostringstream& md) {
  md << "## Per-layer summary\n\n| Layer | Files | Hunks | + | − |\n|---|---:|---:|---:|---:|\n";
  for (Layer layer : kAllLayers) {
    const LayerSummary& s = SummaryOf(a, layer);
    md << "| " << LayerTitle(layer) << " | " << s.files << " | " << s.hunks << " | " << s.additions << " | "
       << s.deletions << " |\n";
  }
  const Totals t = ComputeTotals(a);
  md << "| **total** | " << t.files << " | " << t.hunks << " | " << t.additions << " | " << t.deletions << " |\n\n";
}

void RenderFindings(const Analysis& a, std::ostringstream& md) {
  md << "## Patterns\n\n";
  if (a.patterns.empty()) md << "None.\n\n";
  else md << "| Pattern | Layer | Count | Description |\n|---|---|---:|---|\n";
  for (const PatternCount& p : a.patterns)
    md << "| " << Cell(Code(p.id)) << " | " << LayerName(p.layer) << " | " << p.count << " | " << Cell(p.description)
       << " |\n";
  if (!a.patterns.empty()) md << "\n";

  md << "## Minimal-modification violations\n\n";
  if (a.violations.empty()) md << "None.\n\n";
  else md << "| Rule | Where | Message |\n|---|---|---|\n";
  for (const Violation& v : a.violations)
    md << "| " << Cell(Code(v.rule)) << " | " << Cell(Code(v.line > 0 ? v.path + ":" + std::to_string(v.line) : v.path))
       << " | " << Cell(v.message) << " |\n";
  if (!a.violations.empty()) md << "\n";
}

void RenderCompatGaps(const Analysis& a, std::ostringstream& md) {
  md << "## Compat-gap workarounds\n\n";
  if (a.compat_gaps.empty()) {
    md << "None.\n\n";
    return;
  }
  const auto missing = std::count_if(a.compat_gaps.begin(), a.compat_gaps.end(),
                                     [](const CompatGap& g) { return g.removal.empty(); });
  md << "Every workaround should state what it covers, when it can be deleted, and whether a Paddle issue "
        "is needed";
  if (missing > 0) md << "; " << missing << " of " << a.compat_gaps.size() << " lack a removal condition";
  md << ".\n\n| API | Bridge | Where | Scope | Removal condition | Issue |\n|---|---|---|---|---|---|\n";
  for (const CompatGap& g : a.compat_gaps) {
    const std::string where = g.line > 0 ? g.path + ":" + std::to_string(g.line) : g.path;
    md << "| " << Cell(Code(g.api)) << " | " << Cell(Code(g.bridge)) << " | " << Cell(Code(where)) << " | "
       << Cell(OrDash(g.scope)) << " | " << (g.removal.empty() ? "**missing**" : Cell(g.removal)) << " | "
       << Cell(OrDash(g.issue)) << " |\n";
  }
  md << "\n";
}

void RenderMovesAndNotices(const Analysis& a, std::ostringstream& md) {
  if (!a.moves.empty()) {
    md << "## Directory moves and copies\n\n| Kind | From | To | Files | Verbatim | Adapted |\n"
       << "|---|---|---|---:|---:|---:|\n";
    for (const TreeMove& m : a.moves)
      md << "| " << Cell(m.kind) << " | " << Cell(Code(m.from)) << " | " << Cell(Code(m.to)) << " | " << m.files
         << " | " << m.verbatim << " | " << m.adapted << " |\n";
    md << "\n";
  }
  md << "## Notices\n\n";
  if (a.notices.empty()) md << "None.\n";
  for (const std::string& n : a.notices) md << "- " << n << "\n";
  md << "\n";
}

// "id ×3, id2 ×1" for the first `limit` (id, count) pairs, largest counts first.
std::string CountList(std::vector<std::pair<std::string, int>> counts, size_t limit) {
  std::stable_sort(counts.begin(), counts.end(), [](const auto& x, const auto& y) { return x.second > y.second; });
  std::string s;
  for (size_t i = 0; i < counts.size() && i < limit; ++i)
    s += (i ? ", " : "") + counts[i].first + " ×" + std::to_string(counts[i].second);
  if (counts.size() > limit) s += ", … (" + std::to_string(counts.size() - limit) + " more)";
  return s.empty() ? "none" : s;
}

std::string TableRow(const std::string& name, int files, int hunks, int additions, int deletions) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "  %-10s %6d %6d %7d %7d\n", name.c_str(), files, hunks, additions, deletions);
  return buf;
}

std::string OrQuestion(const std::string& s) { return s.empty() ? "?" : s; }

}  // namespace

std::string RenderMarkdown(const Analysis& analysis) {
  std::ostringstream md;
  RenderHeader(analysis, md);
  RenderFilesByLayer(analysis, md);
  RenderLayerSummary(analysis, md);
  RenderFindings(analysis, md);
  RenderCompatGaps(analysis, md);
  RenderMovesAndNotices(analysis, md);
  RenderValidation(analysis, md);
  return md.str();
}

std::string RenderText(const Analysis& a) {
  std::ostringstream out;
  out << "fork " << OrQuestion(a.fork.branch) << "@" << OrQuestion(ShortSha(a.fork.sha)) << " vs upstream "
      << OrQuestion(a.upstream.branch) << "@" << OrQuestion(ShortSha(a.upstream.sha)) << "\n"
      << "merge-base " << OrQuestion(ShortSha(a.merge_base)) << " (" << OrQuestion(a.base_source) << "), "
      << a.ahead << " ahead, " << a.behind << " behind, style " << MigrationStyleName(a.style)
      << (a.style == MigrationStyle::kNone ? " (no Paddle migration found)" : "") << ", "
      << (a.cached ? "cached" : "fresh") << "\n";
  char header[128];
  std::snprintf(header, sizeof header, "  %-10s %6s %6s %7s %7s\n", "layer", "files", "hunks", "+", "-");
  out << header;
  for (Layer layer : kAllLayers) {
    const LayerSummary& s = SummaryOf(a, layer);
    out << TableRow(LayerName(layer), s.files, s.hunks, s.additions, s.deletions);
  }
  const Totals t = ComputeTotals(a);
  out << TableRow("total", t.files, t.hunks, t.additions, t.deletions);
  std::vector<std::pair<std::string, int>> patterns, rules;
  for (const PatternCount& p : a.patterns) patterns.emplace_back(p.id, p.count);
  for (const Violation& v : a.violations) {
    auto it = std::find_if(rules.begin(), rules.end(), [&](const auto& r) { return r.first == v.rule; });
    if (it == rules.end()) rules.emplace_back(v.rule, 1);
    else ++it->second;
  }
  const auto no_removal = std::count_if(a.compat_gaps.begin(), a.compat_gaps.end(),
                                        [](const CompatGap& g) { return g.removal.empty(); });
  out << "patterns: " << CountList(patterns, 5) << "\n"
      << "violations: " << CountList(rules, 10) << "\n"
      << "compat gaps: " << a.compat_gaps.size();
  if (no_removal > 0) out << " (" << no_removal << " without removal condition)";
  out << "\n";
  for (const std::string& n : a.notices) out << "note: " << n << "\n";
  return out.str();
}

}  // namespace forkscope::analyzer
