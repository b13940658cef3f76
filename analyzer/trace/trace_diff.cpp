#include "analyzer/trace/trace_diff.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include "analyzer/classify/classifier.h"

namespace forkscope::analyzer {

using nlohmann::json;

namespace {

Status LineError(const std::string& origin, int line, const std::string& what) {
  return InvalidArgument(origin + ":" + std::to_string(line) + ": " + what);
}

Result<TensorTrace> ParseTensor(const json& j, const std::string& where) {
  if (!j.is_object()) return InvalidArgument(where + " must be an object");
  TensorTrace t;
  if (j.contains("shape")) {
    const json& s = j["shape"];
    if (!s.is_array()) return InvalidArgument(where + ".shape must be an array of integers");
    std::vector<int64_t> dims;
    for (const auto& d : s) {
      if (!d.is_number_integer()) return InvalidArgument(where + ".shape must be an array of integers");
      dims.push_back(d.get<int64_t>());
    }
    t.shape = std::move(dims);
  }
  if (j.contains("dtype")) {
    if (!j["dtype"].is_string()) return InvalidArgument(where + ".dtype must be a string");
    t.dtype = j["dtype"].get<std::string>();
  }
  if (j.contains("values")) {
    const json& v = j["values"];
    if (!v.is_array()) return InvalidArgument(where + ".values must be an array of numbers");
    std::vector<double> values;
    values.reserve(v.size());
    for (const auto& x : v) {
      // NaN and infinities have no JSON number: writers use null / strings "nan", "inf", "-inf".
      if (x.is_number())
        values.push_back(x.get<double>());
      else if (x.is_null() || x == "nan" || x == "NaN")
        values.push_back(std::nan(""));
      else if (x == "inf" || x == "Infinity")
        values.push_back(INFINITY);
      else if (x == "-inf" || x == "-Infinity")
        values.push_back(-INFINITY);
      else
        return InvalidArgument(where + ".values must be an array of numbers");
    }
    t.values = std::move(values);
  }
  if (j.contains("checksum")) {
    if (!j["checksum"].is_string() && !j["checksum"].is_number())
      return InvalidArgument(where + ".checksum must be a string or a number");
    t.checksum = j["checksum"];
  }
  return t;
}

Result<std::vector<TensorTrace>> ParseTensors(const json& rec, const char* key, const std::string& where) {
  std::vector<TensorTrace> out;
  if (!rec.contains(key)) return out;
  if (!rec[key].is_array()) return InvalidArgument(where + std::string(key) + " must be an array");
  for (size_t i = 0; i < rec[key].size(); ++i) {
    FS_ASSIGN_OR_RETURN(TensorTrace t, ParseTensor(rec[key][i], where + key + "[" + std::to_string(i) + "]"));
    out.push_back(std::move(t));
  }
  return out;
}

Result<std::optional<double>> ParseTol(const json& rec, const char* key) {
  if (!rec.contains(key)) return std::optional<double>();
  if (!rec[key].is_number() || rec[key].get<double>() < 0)
    return InvalidArgument(std::string(key) + " must be a number >= 0");
  return std::optional<double>(rec[key].get<double>());
}

Result<TraceRecord> ParseRecord(const json& rec, int line) {
  if (!rec.is_object()) return InvalidArgument("not a JSON object");
  TraceRecord r;
  r.line = line;
  if (!rec.contains("site") || !rec["site"].is_string()) return InvalidArgument("missing string 'site' (file:line)");
  if (!rec.contains("op") || !rec["op"].is_string()) return InvalidArgument("missing string 'op'");
  r.site = rec["site"].get<std::string>();
  r.op = rec["op"].get<std::string>();
  FS_ASSIGN_OR_RETURN(r.inputs, ParseTensors(rec, "inputs", ""));
  if (rec.contains("output") && !rec.contains("outputs")) {
    FS_ASSIGN_OR_RETURN(TensorTrace out, ParseTensor(rec["output"], "output"));
    r.outputs.push_back(std::move(out));
  } else {
    FS_ASSIGN_OR_RETURN(r.outputs, ParseTensors(rec, "outputs", ""));
  }
  FS_ASSIGN_OR_RETURN(r.atol, ParseTol(rec, "atol"));
  FS_ASSIGN_OR_RETURN(r.rtol, ParseTol(rec, "rtol"));
  return r;
}

std::string ShapeText(const std::optional<std::vector<int64_t>>& shape) {
  if (!shape) return "(none)";
  std::string s = "[";
  for (size_t i = 0; i < shape->size(); ++i) s += (i ? ", " : "") + std::to_string((*shape)[i]);
  return s + "]";
}

std::string NumberText(double v) {
  std::ostringstream os;
  os.precision(9);
  os << v;
  return os.str();
}

bool Close(double m, double r, double atol, double rtol) {
  if (std::isnan(m) || std::isnan(r)) return std::isnan(m) && std::isnan(r);
  if (std::isinf(m) || std::isinf(r)) return m == r;
  return std::fabs(m - r) <= atol + rtol * std::fabs(r);
}

Divergence Make(size_t index, DivergenceKind kind, const TraceRecord* r, const TraceRecord* m, std::string detail,
                std::string ref_value, std::string mig_value) {
  Divergence d;
  d.index = index;
  d.kind = kind;
  d.op = r ? r->op : m->op;
  d.reference_site = r ? r->site : "";
  d.migrated_site = m ? m->site : "";
  d.detail = std::move(detail);
  d.reference = std::move(ref_value);
  d.migrated = std::move(mig_value);
  return d;
}

// Shape and dtype of one tensor; what (e.g. "input 0") names it in the detail.
std::optional<Divergence> CompareMeta(size_t i, const TraceRecord& r, const TraceRecord& m, const TensorTrace& rt,
                                      const TensorTrace& mt, const std::string& what) {
  if (rt.shape != mt.shape)
    return Make(i, DivergenceKind::kShape, &r, &m, what + " shape differs", ShapeText(rt.shape), ShapeText(mt.shape));
  if (rt.dtype != mt.dtype) return Make(i, DivergenceKind::kDtype, &r, &m, what + " dtype differs", rt.dtype, mt.dtype);
  return std::nullopt;
}

std::optional<Divergence> CompareValues(size_t i, const TraceRecord& r, const TraceRecord& m, const TensorTrace& rt,
                                        const TensorTrace& mt, const std::string& what, double atol, double rtol) {
  std::string tol = " (atol " + NumberText(atol) + ", rtol " + NumberText(rtol) + ")";
  if (rt.values && mt.values) {
    if (rt.values->size() != mt.values->size())
      return Make(i, DivergenceKind::kShape, &r, &m, what + " element count differs", std::to_string(rt.values->size()),
                  std::to_string(mt.values->size()));
    for (size_t k = 0; k < rt.values->size(); ++k) {
      double rv = (*rt.values)[k], mv = (*mt.values)[k];
      if (!Close(mv, rv, atol, rtol))
        return Make(i, DivergenceKind::kValue, &r, &m,
                    what + " element " + std::to_string(k) + " differs by " + NumberText(std::fabs(mv - rv)) + tol,
                    NumberText(rv), NumberText(mv));
    }
  } else if (rt.checksum && mt.checksum) {
    const json& rc = *rt.checksum;
    const json& mc = *mt.checksum;
    bool same = (rc.is_number() && mc.is_number()) ? Close(mc.get<double>(), rc.get<double>(), atol, rtol) : rc == mc;
    if (!same)
      return Make(i, DivergenceKind::kChecksum, &r, &m, what + " checksum differs" + (rc.is_number() ? tol : ""),
                  rc.is_string() ? rc.get<std::string>() : rc.dump(),
                  mc.is_string() ? mc.get<std::string>() : mc.dump());
  } else if (rt.values || rt.checksum || mt.values || mt.checksum) {
    auto form = [](const TensorTrace& t) { return t.values ? "values" : t.checksum ? "checksum" : "nothing"; };
    return Make(i, DivergenceKind::kValue, &r, &m, what + " recorded differently", form(rt), form(mt));
  }
  return std::nullopt;
}

std::optional<Divergence> CompareRecord(size_t i, const TraceRecord& r, const TraceRecord& m,
                                        const TraceTolerance& tolerance) {
  if (r.inputs.size() != m.inputs.size())
    return Make(i, DivergenceKind::kShape, &r, &m, "number of inputs differs", std::to_string(r.inputs.size()),
                std::to_string(m.inputs.size()));
  for (size_t k = 0; k < r.inputs.size(); ++k)
    if (auto d = CompareMeta(i, r, m, r.inputs[k], m.inputs[k], "input " + std::to_string(k))) return d;
  if (r.outputs.size() != m.outputs.size())
    return Make(i, DivergenceKind::kShape, &r, &m, "number of outputs differs", std::to_string(r.outputs.size()),
                std::to_string(m.outputs.size()));
  double atol = r.atol.value_or(m.atol.value_or(tolerance.atol));
  double rtol = r.rtol.value_or(m.rtol.value_or(tolerance.rtol));
  for (size_t k = 0; k < r.outputs.size(); ++k) {
    std::string what = "output " + std::to_string(k);
    if (auto d = CompareMeta(i, r, m, r.outputs[k], m.outputs[k], what)) return d;
    if (auto d = CompareValues(i, r, m, r.outputs[k], m.outputs[k], what, atol, rtol)) return d;
  }
  return std::nullopt;
}

}  // namespace

const char* DivergenceKindName(DivergenceKind kind) {
  switch (kind) {
    case DivergenceKind::kOp:
      return "op";
    case DivergenceKind::kMissingCall:
      return "missing_call";
    case DivergenceKind::kExtraCall:
      return "extra_call";
    case DivergenceKind::kShape:
      return "shape";
    case DivergenceKind::kDtype:
      return "dtype";
    case DivergenceKind::kValue:
      return "value";
    case DivergenceKind::kChecksum:
      return "checksum";
  }
  return "op";
}

Result<std::vector<TraceRecord>> ParseTrace(std::string_view text, const std::string& origin) {
  std::vector<TraceRecord> records;
  int line = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view raw = text.substr(start, end - start);
    start = end + 1;
    ++line;
    if (raw.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    json rec = json::parse(raw, nullptr, false);
    if (rec.is_discarded()) return LineError(origin, line, "not valid JSON");
    auto parsed = ParseRecord(rec, line);
    if (!parsed.ok()) return LineError(origin, line, parsed.status().message());
    records.push_back(std::move(*parsed));
  }
  return records;
}

Result<std::vector<TraceRecord>> LoadTrace(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return NotFound(path + ": cannot open trace");
  // A trace is written by the stage's own program: a runaway one must not exhaust the daemon's memory.
  if (static_cast<uint64_t>(in.tellg()) > kMaxTraceBytes)
    return InvalidArgument(path + ": trace larger than " + std::to_string(kMaxTraceBytes >> 20) + " MiB");
  in.seekg(0);
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseTrace(ss.str(), path);
}

TraceDiffResult DiffTraces(const std::vector<TraceRecord>& reference, const std::vector<TraceRecord>& migrated,
                           const TraceTolerance& tolerance) {
  TraceDiffResult result;
  result.reference_records = reference.size();
  result.migrated_records = migrated.size();
  const size_t n = std::min(reference.size(), migrated.size());
  for (size_t i = 0; i < n; ++i) {
    const TraceRecord& r = reference[i];
    const TraceRecord& m = migrated[i];
    if (r.op != m.op) {
      // One call more or less shows as the next record lining up again.
      if (i + 1 < migrated.size() && migrated[i + 1].op == r.op)
        result.divergence =
            Make(i, DivergenceKind::kExtraCall, nullptr, &m, "the migrated run makes an extra call", "(none)", m.op);
      else if (i + 1 < reference.size() && reference[i + 1].op == m.op)
        result.divergence = Make(i, DivergenceKind::kMissingCall, &r, nullptr,
                                 "the migrated run does not make this call", r.op, "(none)");
      else
        result.divergence = Make(i, DivergenceKind::kOp, &r, &m, "a different op is called", r.op, m.op);
      return result;
    }
    if (auto d = CompareRecord(i, r, m, tolerance)) {
      result.divergence = std::move(d);
      return result;
    }
    result.compared = i + 1;
  }
  if (reference.size() > n)
    result.divergence = Make(n, DivergenceKind::kMissingCall, &reference[n], nullptr,
                             "the migrated trace ends before this call", reference[n].op, "(none)");
  else if (migrated.size() > n)
    result.divergence = Make(n, DivergenceKind::kExtraCall, nullptr, &migrated[n],
                             "the migrated trace has calls after the reference's last", "(none)", migrated[n].op);
  return result;
}

std::string SiteFile(std::string_view site, std::string_view root) {
  std::string_view file = site;
  if (size_t colon = site.rfind(':'); colon != std::string_view::npos && colon + 1 < site.size() &&
                                      site.find_first_not_of("0123456789", colon + 1) == std::string_view::npos)
    file = site.substr(0, colon);
  if (!root.empty()) {
    std::string prefix(root);
    if (prefix.back() != '/') prefix += '/';
    if (file.substr(0, prefix.size()) == prefix) file.remove_prefix(prefix.size());
  }
  while (file.substr(0, 2) == "./") file.remove_prefix(2);
  return std::string(file);
}

void AttachLayer(Divergence& d, const Analysis* analysis, const Rules* rules, std::string_view root) {
  d.file = SiteFile(d.migrated_site.empty() ? d.reference_site : d.migrated_site, root);
  if (d.file.empty()) return;
  if (analysis) {
    for (const auto& f : analysis->files) {
      bool suffix = d.file.size() > f.path.size() &&
                    d.file.compare(d.file.size() - f.path.size(), f.path.size(), f.path) == 0 &&
                    d.file[d.file.size() - f.path.size() - 1] == '/';
      if (f.path == d.file || suffix) {
        d.file = f.path;
        d.layer = f.layer;
        d.layer_source = "analysis";
        return;
      }
    }
  }
  if (rules && d.file.front() != '/') {
    d.layer = ClassifyPath(*rules, d.file);
    d.layer_source = "path";
  }
}

json TraceDiffToJson(const TraceDiffResult& r) {
  json out{{"identical", r.identical()},
           {"reference_records", r.reference_records},
           {"migrated_records", r.migrated_records},
           {"compared", r.compared},
           {"divergence", nullptr}};
  if (r.divergence) {
    const Divergence& d = *r.divergence;
    out["divergence"] = json{{"index", d.index},
                             {"kind", DivergenceKindName(d.kind)},
                             {"op", d.op},
                             {"reference_site", d.reference_site},
                             {"migrated_site", d.migrated_site},
                             {"detail", d.detail},
                             {"reference", d.reference},
                             {"migrated", d.migrated},
                             {"file", d.file},
                             {"layer", d.layer ? json(LayerName(*d.layer)) : json(nullptr)},
                             {"layer_source", d.layer_source}};
  }
  return out;
}

std::string RenderTraceDiffText(const TraceDiffResult& r) {
  std::string counts =
      std::to_string(r.reference_records) + " reference / " + std::to_string(r.migrated_records) + " migrated records";
  if (!r.divergence) return "traces match: " + counts + "\n";
  const Divergence& d = *r.divergence;
  std::string out = "first divergence at record " + std::to_string(d.index) + " (" + DivergenceKindName(d.kind) +
                    "): op " + d.op + "\n";
  out += "  reference site: " + (d.reference_site.empty() ? "(none)" : d.reference_site) + "\n";
  out += "  migrated site:  " + (d.migrated_site.empty() ? "(none)" : d.migrated_site) + "\n";
  if (d.layer)
    out += "  file " + d.file + ": layer " + LayerName(*d.layer) +
           (d.layer_source == "analysis" ? " (changed by the migration)" : " (by path; not changed by the migration)") +
           "\n";
  out += "  " + d.detail + ": reference " + d.reference + ", migrated " + d.migrated + "\n";
  out += "  " + std::to_string(r.compared) + " records matched before it; " + counts + "\n";
  return out;
}

}  // namespace forkscope::analyzer
