// Runtime comparison: two JSONL traces of operator calls (the reference run and the migrated run)
// compared record by record, reporting the first divergence and the layer of the file it points at.
// Pure functions over values; thread-safe.
//
// A trace has one JSON object per line (blank lines are ignored):
//   {"site": "fastops/ops.py:42",           call site, "file:line" (required)
//    "op": "scale",                          operator name (required)
//    "inputs":  [{"shape": [4, 8], "dtype": "float32"}],
//    "outputs": [{"shape": [4, 8], "dtype": "float32", "values": [0.5, ...]}   or  "checksum": "9f2c" | 12.5],
//    "atol": 1e-8, "rtol": 1e-5}             tolerance for this record's values (optional)
// "output": {...} is accepted for a single output. Records are matched by position; the call sites
// are reported but not compared (the migration shifts line numbers).
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/classify/rules.h"
#include "analyzer/model/model.h"
#include "base/status.h"

namespace forkscope::analyzer {

struct TensorTrace {
  std::optional<std::vector<int64_t>> shape;
  std::string dtype;  // "" when not recorded
  std::optional<std::vector<double>> values;
  std::optional<nlohmann::json> checksum;  // a string (exact) or a number (within tolerance)
};

struct TraceRecord {
  int line = 0;  // 1-based line in its file
  std::string site;
  std::string op;
  std::vector<TensorTrace> inputs;
  std::vector<TensorTrace> outputs;
  std::optional<double> atol;
  std::optional<double> rtol;
};

// Defaults when a record states no tolerance (torch.allclose's): |m - r| <= atol + rtol * |r|.
struct TraceTolerance {
  double atol = 1e-8;
  double rtol = 1e-5;
};

enum class DivergenceKind { kOp, kMissingCall, kExtraCall, kShape, kDtype, kValue, kChecksum };
const char* DivergenceKindName(DivergenceKind kind);  // "op", "missing_call", "extra_call", ...

struct Divergence {
  size_t index = 0;  // 0-based record index where the traces part
  DivergenceKind kind = DivergenceKind::kOp;
  std::string op;              // the reference's op (the migrated one for an extra call)
  std::string reference_site;  // "" when the reference has no record there
  std::string migrated_site;   // "" when the migrated trace has no record there
  std::string detail;          // what differs, one line
  std::string reference;       // the two values (shape, dtype, element, checksum, op) as text
  std::string migrated;
  // Filled by AttachLayer: the file of the site and the layer it belongs to.
  std::string file;
  std::optional<Layer> layer;
  std::string layer_source;  // "analysis" (a file the migration changed) or "path" (path rules)
};

struct TraceDiffResult {
  size_t reference_records = 0;
  size_t migrated_records = 0;
  size_t compared = 0;  // records that matched before the divergence (all, when identical)
  std::optional<Divergence> divergence;
  bool identical() const { return !divergence.has_value(); }
};

// Parses a JSONL trace; errors name origin and line ("ref.jsonl:3: missing 'op'").
Result<std::vector<TraceRecord>> ParseTrace(std::string_view text, const std::string& origin);
// Reads and parses a trace file; InvalidArgument above kMaxTraceBytes.
inline constexpr uint64_t kMaxTraceBytes = uint64_t{256} << 20;
Result<std::vector<TraceRecord>> LoadTrace(const std::string& path);

TraceDiffResult DiffTraces(const std::vector<TraceRecord>& reference, const std::vector<TraceRecord>& migrated,
                           const TraceTolerance& tolerance = {});

// The repository-relative file of a call site: "file:line" without the line, root (a work tree
// path) and a leading "./" stripped.
std::string SiteFile(std::string_view site, std::string_view root = {});

// Sets divergence.file/layer/layer_source. The site is the migrated one (the reference's for a
// missing call). A file the analysis lists takes its classified layer (source "analysis"); a path
// ending in one of the analysis' files at a '/' boundary counts too. Otherwise, with rules, the layer
// of the path rules (source "path"). Either pointer may be null.
void AttachLayer(Divergence& divergence, const Analysis* analysis, const Rules* rules, std::string_view root = {});

nlohmann::json TraceDiffToJson(const TraceDiffResult& result);
std::string RenderTraceDiffText(const TraceDiffResult& result);

}  // namespace forkscope::analyzer
