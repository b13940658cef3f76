// Loading and compiling the rules file into RulesData. Every error is an InvalidArgument that
// names the origin and the offending key, e.g. "rules.json: patterns[2].added: bad regex: ...".
#include "analyzer/classify/rules.h"
#include "base/text.h"

#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <utility>

#include "analyzer/classify/default_rules_text.h"
#include "analyzer/classify/rules_data.h"
#include "base/log.h"

namespace forkscope::analyzer {
namespace {

using nlohmann::json;
using PathSets = std::map<std::string, std::vector<std::string>>;

// Keys every rule object may carry besides its own: free-form notes.
bool IsNoteKey(const std::string& key) { return key.empty() || key[0] == '_' || key == "comment"; }

std::string ErrorPrefix(const std::string& origin, const std::string& key) {
  return key.empty() ? origin + ": " : origin + ": " + key + ": ";
}

// Regexes are compiled when first used (LazyRegex). `check_now` compiles each one here instead, so a
// bad one is an error that names its key: every rules text except the shipped default, which the
// tests compile (rules_test) and which is compiled into the binary to be recognised.
class RulesParser {
 public:
  RulesParser(std::string origin, bool check_now) : origin_(std::move(origin)), check_now_(check_now) {}

  Status Parse(const json& doc, RulesData& data);

 private:
  Status Fail(const std::string& key, const std::string& what) const {
    return InvalidArgument(ErrorPrefix(origin_, key) + what);
  }
  Status CheckKeys(const json& obj, const std::string& key, const std::set<std::string>& allowed) const;
  Status Compile(const std::string& pattern, const std::string& key, LazyRegex& out) const;
  Status CompileNew(const std::string& pattern, const std::string& key, LazyRegex& out) const;
  Status Regex(const json& v, const std::string& key, LazyRegex& out) const;
  Status OptionalRegex(const json& obj, const std::string& key, const char* name, LazyRegex& out) const;
  Status Regexes(const json& obj, const std::string& key, const char* name, std::vector<LazyRegex>& out) const;
  Status LayerOf(const json& v, const std::string& key, Layer& out) const;
  Status Layers(const json& obj, const std::string& key, const char* name, std::vector<Layer>& out) const;
  Status Statuses(const json& obj, const std::string& key, std::vector<FileStatus>& out) const;
  Status Globs(const json& v, const std::string& key, std::vector<Glob>& out) const;
  Status OneGlob(const std::string& text, const std::string& key, std::vector<Glob>& out) const;
  Status Text(const json& obj, const std::string& key, const char* name, bool required, std::string& out) const;
  Status Condition(const json& obj, const std::string& key, LineCondition& out) const;
  Status AnyOf(const json& obj, const std::string& key, std::vector<LineCondition>& out) const;
  Status Scope(const json& obj, const std::string& key, HunkScope& out) const;
  Status PathSetsOf(const json& doc);
  Status PathRules(const json& doc, RulesData& data) const;
  Status OneHunkRule(const json& obj, const std::string& key, HunkRule& rule) const;
  Status HunkRules(const json& doc, RulesData& data) const;
  Status WholeFileRules(const json& doc, RulesData& data) const;
  Status OnePattern(const json& obj, const std::string& key, PatternRule& rule) const;
  Status Patterns(const json& doc, RulesData& data) const;
  Status EagerImport(const json& doc, RulesData& data) const;
  Status OneViolation(const json& obj, const std::string& key, ViolationRule& rule) const;
  Status Violations(const json& doc, RulesData& data) const;
  Status CompatGaps(const json& doc, RulesData& data) const;
  Status StyleCutoffs(const json& obj, StyleRules& style) const;
  Status Style(const json& doc, RulesData& data) const;

  std::string origin_;
  bool check_now_;
  PathSets path_sets_;
  // Every pattern seen so far: a pattern named again (a path set in many rules) shares its program.
  mutable std::map<std::string, LazyRegex> by_pattern_;
};

Status RulesParser::CheckKeys(const json& obj, const std::string& key, const std::set<std::string>& allowed) const {
  if (!obj.is_object()) return Fail(key, "expected an object");
  for (const auto& [name, value] : obj.items()) {
    if (!IsNoteKey(name) && !allowed.count(name)) return Fail(key.empty() ? name : key + "." + name, "unknown key");
  }
  return Status::Ok();
}

Status RulesParser::Compile(const std::string& pattern, const std::string& key, LazyRegex& out) const {
  if (auto seen = by_pattern_.find(pattern); seen != by_pattern_.end()) {
    out = seen->second;
    return Status::Ok();
  }
  FS_RETURN_IF_ERROR(CompileNew(pattern, key, out));
  by_pattern_.emplace(pattern, out);
  return Status::Ok();
}

Status RulesParser::CompileNew(const std::string& pattern, const std::string& key, LazyRegex& out) const {
  if (!check_now_) {
    out = LazyRegex(pattern);
    return Status::Ok();
  }
  auto re = std::make_unique<RE2>(pattern, LazyRegex::Options());
  if (!re->ok()) return Fail(key, "bad regex '" + pattern + "': " + re->error());
  out = LazyRegex(std::move(re));
  return Status::Ok();
}

Status RulesParser::Regex(const json& v, const std::string& key, LazyRegex& out) const {
  if (!v.is_string()) return Fail(key, "expected a regex string");
  return Compile(v.get<std::string>(), key, out);
}

Status RulesParser::OptionalRegex(const json& obj, const std::string& key, const char* name, LazyRegex& out) const {
  auto it = obj.find(name);
  if (it == obj.end()) return Status::Ok();
  return Regex(*it, key + "." + name, out);
}

// A regex or a non-empty array of regexes (each must hold).
Status RulesParser::Regexes(const json& obj, const std::string& key, const char* name,
                            std::vector<LazyRegex>& out) const {
  auto it = obj.find(name);
  if (it == obj.end()) return Status::Ok();
  const std::string sub = key + "." + name;
  if (it->is_string()) return Regex(*it, sub, out.emplace_back());
  if (!it->is_array() || it->empty()) return Fail(sub, "expected a regex string or a non-empty array of them");
  for (size_t i = 0; i < it->size(); ++i)
    FS_RETURN_IF_ERROR(Regex((*it)[i], sub + "[" + std::to_string(i) + "]", out.emplace_back()));
  return Status::Ok();
}

Status RulesParser::LayerOf(const json& v, const std::string& key, Layer& out) const {
  if (!v.is_string()) return Fail(key, "expected a layer name");
  auto layer = LayerFromName(v.get<std::string>());
  if (!layer) return Fail(key, "unknown layer '" + v.get<std::string>() + "'");
  out = *layer;
  return Status::Ok();
}

Status RulesParser::Layers(const json& obj, const std::string& key, const char* name, std::vector<Layer>& out) const {
  auto it = obj.find(name);
  if (it == obj.end()) return Status::Ok();
  const std::string sub = key + "." + name;
  if (!it->is_array()) return Fail(sub, "expected an array of layer names");
  for (size_t i = 0; i < it->size(); ++i) {
    Layer layer;
    FS_RETURN_IF_ERROR(LayerOf((*it)[i], sub + "[" + std::to_string(i) + "]", layer));
    out.push_back(layer);
  }
  return Status::Ok();
}

Status RulesParser::Statuses(const json& obj, const std::string& key, std::vector<FileStatus>& out) const {
  auto it = obj.find("statuses");
  if (it == obj.end()) return Status::Ok();
  const std::string sub = key + ".statuses";
  if (!it->is_array()) return Fail(sub, "expected an array of file statuses");
  for (const auto& v : *it) {
    auto status = v.is_string() ? FileStatusFromName(v.get<std::string>()) : std::nullopt;
    if (!status) return Fail(sub, "unknown file status " + v.dump());
    out.push_back(*status);
  }
  return Status::Ok();
}

Status RulesParser::OneGlob(const std::string& text, const std::string& key, std::vector<Glob>& out) const {
  if (text.empty()) return Fail(key, "empty glob");
  if (text[0] == '@') {
    auto set = path_sets_.find(text.substr(1));
    if (set == path_sets_.end()) return Fail(key, "unknown path set '" + text + "'");
    for (const auto& g : set->second) FS_RETURN_IF_ERROR(OneGlob(g, key, out));
    return Status::Ok();
  }
  Glob glob{text, LazyRegex()};
  FS_RETURN_IF_ERROR(Compile(GlobToRegex(text), key + " (glob '" + text + "')", glob.re));
  out.push_back(std::move(glob));
  return Status::Ok();
}

Status RulesParser::Globs(const json& v, const std::string& key, std::vector<Glob>& out) const {
  std::vector<Glob> each;
  if (v.is_string()) {
    FS_RETURN_IF_ERROR(OneGlob(v.get<std::string>(), key, each));
  } else if (v.is_array()) {
    for (size_t i = 0; i < v.size(); ++i) {
      const std::string sub = key + "[" + std::to_string(i) + "]";
      if (!v[i].is_string()) return Fail(sub, "expected a glob string");
      FS_RETURN_IF_ERROR(OneGlob(v[i].get<std::string>(), sub, each));
    }
  } else {
    return Fail(key, "expected a glob or an array of globs");
  }
  if (each.size() <= 1) {
    for (auto& g : each) out.push_back(std::move(g));
    return Status::Ok();
  }
  // Every glob was checked on its own above; one alternation matches the list in a single pass
  // (rules ask about each changed file's path many times).
  Glob all{"", LazyRegex()};
  std::string alternation;
  for (const auto& g : each) {
    all.text += (all.text.empty() ? "" : ", ") + g.text;
    alternation += (alternation.empty() ? "(?:" : "|(?:") + g.re.pattern() + ")";
  }
  FS_RETURN_IF_ERROR(Compile(alternation, key, all.re));
  out.push_back(std::move(all));
  return Status::Ok();
}

Status RulesParser::Text(const json& obj, const std::string& key, const char* name, bool required,
                         std::string& out) const {
  auto it = obj.find(name);
  if (it == obj.end()) return required ? Fail(key + "." + name, "missing") : Status::Ok();
  if (!it->is_string() || (required && it->get<std::string>().empty()))
    return Fail(key + "." + name, "expected a non-empty string");
  out = it->get<std::string>();
  return Status::Ok();
}

Status RulesParser::Condition(const json& obj, const std::string& key, LineCondition& out) const {
  FS_RETURN_IF_ERROR(OptionalRegex(obj, key, "added", out.added));
  FS_RETURN_IF_ERROR(OptionalRegex(obj, key, "removed", out.removed));
  FS_RETURN_IF_ERROR(OptionalRegex(obj, key, "changed", out.changed));
  return OptionalRegex(obj, key, "not_added", out.not_added);
}

Status RulesParser::AnyOf(const json& obj, const std::string& key, std::vector<LineCondition>& out) const {
  auto it = obj.find("any_of");
  if (it == obj.end()) return Status::Ok();
  if (!it->is_array() || it->empty()) return Fail(key + ".any_of", "expected a non-empty array");
  for (size_t i = 0; i < it->size(); ++i) {
    const std::string sub = key + ".any_of[" + std::to_string(i) + "]";
    FS_RETURN_IF_ERROR(CheckKeys((*it)[i], sub, {"added", "removed", "changed", "not_added"}));
    LineCondition cond;
    FS_RETURN_IF_ERROR(Condition((*it)[i], sub, cond));
    out.push_back(std::move(cond));
  }
  return Status::Ok();
}

Status RulesParser::Scope(const json& obj, const std::string& key, HunkScope& out) const {
  if (auto it = obj.find("paths"); it != obj.end()) FS_RETURN_IF_ERROR(Globs(*it, key + ".paths", out.paths));
  FS_RETURN_IF_ERROR(Layers(obj, key, "file_layers", out.file_layers));
  FS_RETURN_IF_ERROR(Layers(obj, key, "hunk_layers", out.hunk_layers));
  return Statuses(obj, key, out.statuses);
}

Status RulesParser::PathSetsOf(const json& doc) {
  auto it = doc.find("path_sets");
  if (it == doc.end()) return Status::Ok();
  if (!it->is_object()) return Fail("path_sets", "expected an object of glob arrays");
  for (const auto& [name, globs] : it->items()) {
    if (IsNoteKey(name)) continue;
    if (!globs.is_array()) return Fail("path_sets." + name, "expected an array of globs");
    for (const auto& g : globs) {
      if (!g.is_string() || g.get<std::string>().empty() || g.get<std::string>()[0] == '@')
        return Fail("path_sets." + name, "expected plain glob strings");
      path_sets_[name].push_back(g.get<std::string>());
    }
  }
  return Status::Ok();
}

Status RulesParser::PathRules(const json& doc, RulesData& data) const {
  auto it = doc.find("path_rules");
  if (it == doc.end() || !it->is_array()) return Fail("path_rules", "missing or not an array");
  for (size_t i = 0; i < it->size(); ++i) {
    const std::string key = "path_rules[" + std::to_string(i) + "]";
    const json& obj = (*it)[i];
    FS_RETURN_IF_ERROR(CheckKeys(obj, key, {"glob", "layer"}));
    if (!obj.contains("glob") || !obj.contains("layer")) return Fail(key, "needs 'glob' and 'layer'");
    std::vector<Glob> globs;
    Layer layer;
    FS_RETURN_IF_ERROR(Globs(obj["glob"], key + ".glob", globs));
    FS_RETURN_IF_ERROR(LayerOf(obj["layer"], key + ".layer", layer));
    for (auto& g : globs) data.path_rules.push_back(PathRule{std::move(g), layer});
  }
  return Status::Ok();
}

Status RulesParser::OneHunkRule(const json& obj, const std::string& key, HunkRule& rule) const {
  FS_RETURN_IF_ERROR(
      CheckKeys(obj, key, {"id", "paths", "match", "every", "context", "body", "file", "unless", "layer"}));
  FS_RETURN_IF_ERROR(Text(obj, key, "id", false, rule.id));
  if (!obj.contains("paths") || !obj.contains("layer")) return Fail(key, "needs 'paths' and 'layer'");
  FS_RETURN_IF_ERROR(Globs(obj["paths"], key + ".paths", rule.paths));
  FS_RETURN_IF_ERROR(LayerOf(obj["layer"], key + ".layer", rule.layer));
  FS_RETURN_IF_ERROR(OptionalRegex(obj, key, "match", rule.match));
  FS_RETURN_IF_ERROR(OptionalRegex(obj, key, "every", rule.every));
  FS_RETURN_IF_ERROR(OptionalRegex(obj, key, "context", rule.context));
  FS_RETURN_IF_ERROR(Regexes(obj, key, "body", rule.body));
  FS_RETURN_IF_ERROR(OptionalRegex(obj, key, "file", rule.file));
  FS_RETURN_IF_ERROR(OptionalRegex(obj, key, "unless", rule.unless));
  if (!rule.match && !rule.every && !rule.context && rule.body.empty() && !rule.file)
    return Fail(key, "needs 'match', 'every', 'context', 'body' or 'file'");
  return Status::Ok();
}

Status RulesParser::HunkRules(const json& doc, RulesData& data) const {
  auto it = doc.find("hunk_rules");
  if (it == doc.end()) return Status::Ok();
  if (!it->is_array()) return Fail("hunk_rules", "expected an array");
  for (size_t i = 0; i < it->size(); ++i) {
    HunkRule rule;
    FS_RETURN_IF_ERROR(OneHunkRule((*it)[i], "hunk_rules[" + std::to_string(i) + "]", rule));
    data.hunk_rules.push_back(std::move(rule));
  }
  return Status::Ok();
}

Status RulesParser::WholeFileRules(const json& doc, RulesData& data) const {
  auto it = doc.find("whole_file_rules");
  if (it == doc.end()) return Status::Ok();
  if (!it->is_array()) return Fail("whole_file_rules", "expected an array");
  for (size_t i = 0; i < it->size(); ++i) {
    const std::string key = "whole_file_rules[" + std::to_string(i) + "]";
    FS_RETURN_IF_ERROR(CheckKeys((*it)[i], key, {"id", "paths", "file", "unless", "layer"}));
    HunkRule rule;
    FS_RETURN_IF_ERROR(OneHunkRule((*it)[i], key, rule));
    if (!rule.file) return Fail(key, "needs 'file'");
    data.whole_file_rules.push_back(std::move(rule));
  }
  return Status::Ok();
}

bool HasCondition(const LineCondition& c) { return c.added || c.removed || c.changed || c.not_added; }

Status RulesParser::OnePattern(const json& obj, const std::string& key, PatternRule& rule) const {
  FS_RETURN_IF_ERROR(CheckKeys(obj, key,
                               {"id", "layer", "description", "style", "paths", "file_layers", "hunk_layers",
                                "statuses", "added", "removed", "changed", "not_added", "any_of"}));
  FS_RETURN_IF_ERROR(Text(obj, key, "id", true, rule.id));
  FS_RETURN_IF_ERROR(Text(obj, key, "description", true, rule.description));
  if (!obj.contains("layer")) return Fail(key + ".layer", "missing");
  FS_RETURN_IF_ERROR(LayerOf(obj["layer"], key + ".layer", rule.layer));
  std::string style;
  FS_RETURN_IF_ERROR(Text(obj, key, "style", false, style));
  if (style == "compat")
    rule.style = MigrationStyle::kCompat;
  else if (style == "native")
    rule.style = MigrationStyle::kNative;
  else if (!style.empty())
    return Fail(key + ".style", "expected 'compat' or 'native'");
  FS_RETURN_IF_ERROR(Scope(obj, key, rule.scope));
  FS_RETURN_IF_ERROR(Condition(obj, key, rule.all));
  FS_RETURN_IF_ERROR(AnyOf(obj, key, rule.any_of));
  if (!HasCondition(rule.all) && rule.any_of.empty()) return Fail(key, "needs a line condition");
  return Status::Ok();
}

Status RulesParser::Patterns(const json& doc, RulesData& data) const {
  auto it = doc.find("patterns");
  if (it == doc.end()) return Status::Ok();
  if (!it->is_array()) return Fail("patterns", "expected an array");
  std::set<std::string> ids;
  for (size_t i = 0; i < it->size(); ++i) {
    const std::string key = "patterns[" + std::to_string(i) + "]";
    PatternRule rule;
    FS_RETURN_IF_ERROR(OnePattern((*it)[i], key, rule));
    if (!ids.insert(rule.id).second) return Fail(key + ".id", "duplicate pattern id '" + rule.id + "'");
    data.patterns.push_back(std::move(rule));
  }
  return Status::Ok();
}

std::optional<ViolationCheck> CheckFromName(const std::string& name) {
  static const std::map<std::string, ViolationCheck> kChecks = {
      {"hunk", ViolationCheck::kHunk},
      {"formatting-only", ViolationCheck::kFormattingOnly},
      {"schema-edit", ViolationCheck::kSchemaEdit},
      {"kernel-edit", ViolationCheck::kKernelEdit},
      {"renamed-file", ViolationCheck::kRenamedFile},
      {"deleted-file", ViolationCheck::kDeletedFile},
      {"compat-gap-no-removal", ViolationCheck::kCompatGapNoRemoval},
      {"eager-import-missing", ViolationCheck::kEagerImportMissing},
      {"function-level-torch-import", ViolationCheck::kFunctionLevelTorchImport},
      {"lazy-loader", ViolationCheck::kLazyLoader},
  };
  auto it = kChecks.find(name);
  if (it == kChecks.end()) return std::nullopt;
  return it->second;
}

Status RulesParser::OneViolation(const json& obj, const std::string& key, ViolationRule& rule) const {
  FS_RETURN_IF_ERROR(
      CheckKeys(obj, key,
                {"id", "check", "message", "notice", "severity", "enabled", "paths", "file_layers", "hunk_layers",
                 "statuses", "added", "removed", "changed", "not_added", "any_of", "schema", "reason"}));
  FS_RETURN_IF_ERROR(Text(obj, key, "id", true, rule.id));
  FS_RETURN_IF_ERROR(Text(obj, key, "message", true, rule.message));
  FS_RETURN_IF_ERROR(Text(obj, key, "notice", false, rule.notice));
  std::string severity = "error";
  FS_RETURN_IF_ERROR(Text(obj, key, "severity", false, severity));
  auto level = SeverityFromName(severity);
  if (!level) return Fail(key + ".severity", "expected 'error', 'warning' or 'note'");
  rule.severity = *level;
  std::string check = "hunk";
  FS_RETURN_IF_ERROR(Text(obj, key, "check", false, check));
  auto parsed = CheckFromName(check);
  if (!parsed) return Fail(key + ".check", "unknown check '" + check + "'");
  rule.check = *parsed;
  FS_RETURN_IF_ERROR(Scope(obj, key, rule.scope));
  FS_RETURN_IF_ERROR(Condition(obj, key, rule.all));
  FS_RETURN_IF_ERROR(AnyOf(obj, key, rule.any_of));
  FS_RETURN_IF_ERROR(OptionalRegex(obj, key, "schema", rule.schema));
  FS_RETURN_IF_ERROR(OptionalRegex(obj, key, "reason", rule.reason));
  if (rule.check == ViolationCheck::kHunk && !HasCondition(rule.all) && rule.any_of.empty())
    return Fail(key, "a 'hunk' check needs a line condition");
  if (rule.check == ViolationCheck::kSchemaEdit && !rule.schema) return Fail(key + ".schema", "missing");
  return Status::Ok();
}

Status RulesParser::Violations(const json& doc, RulesData& data) const {
  auto it = doc.find("violations");
  if (it == doc.end()) return Status::Ok();
  if (!it->is_array()) return Fail("violations", "expected an array");
  for (size_t i = 0; i < it->size(); ++i) {
    const std::string key = "violations[" + std::to_string(i) + "]";
    const json& obj = (*it)[i];
    ViolationRule rule;
    FS_RETURN_IF_ERROR(OneViolation(obj, key, rule));
    auto enabled = obj.find("enabled");
    if (enabled != obj.end() && !enabled->is_boolean()) return Fail(key + ".enabled", "expected true or false");
    if (enabled == obj.end() || enabled->get<bool>()) data.violations.push_back(std::move(rule));
  }
  return Status::Ok();
}

Status RulesParser::CompatGaps(const json& doc, RulesData& data) const {
  auto it = doc.find("compat_gaps");
  if (it == doc.end()) return Status::Ok();
  FS_RETURN_IF_ERROR(CheckKeys(*it, "compat_gaps", {"patterns", "api", "bridges"}));
  CompatGapRules& gaps = data.compat_gaps;
  for (const auto& id : it->value("patterns", json::array())) {
    if (!id.is_string() || !data.FindPattern(id.get<std::string>()))
      return Fail("compat_gaps.patterns", "unknown pattern id " + id.dump());
    gaps.patterns.push_back(id.get<std::string>());
  }
  FS_RETURN_IF_ERROR(OptionalRegex(*it, "compat_gaps", "api", gaps.api));
  const json bridges = it->value("bridges", json::array());
  if (!bridges.is_array()) return Fail("compat_gaps.bridges", "expected an array of regexes");
  for (size_t i = 0; i < bridges.size(); ++i) {
    LazyRegex re;
    FS_RETURN_IF_ERROR(Regex(bridges[i], "compat_gaps.bridges[" + std::to_string(i) + "]", re));
    gaps.bridges.push_back(std::move(re));
  }
  return Status::Ok();
}

Status RulesParser::StyleCutoffs(const json& obj, StyleRules& style) const {
  const std::pair<const char*, int*> cutoffs[] = {{"mixed_percent", &style.mixed_percent},
                                                  {"mixed_hunks", &style.mixed_hunks}};
  for (const auto& [name, field] : cutoffs) {
    auto it = obj.find(name);
    if (it == obj.end()) continue;
    if (!it->is_number_integer() || it->get<int64_t>() < 0 || it->get<int64_t>() > 100)
      return Fail(std::string("style.") + name, "expected an integer from 0 to 100");
    *field = it->get<int>();
  }
  return Status::Ok();
}

Status RulesParser::Style(const json& doc, RulesData& data) const {
  auto it = doc.find("style");
  if (it == doc.end()) return Status::Ok();
  static const char* const kRegexes[] = {"compat_added", "paddle_added", "torch_cxx",     "paddle_cxx",
                                         "native_cxx",   "torch_import", "paddle_package"};
  std::set<std::string> keys(std::begin(kRegexes), std::end(kRegexes));
  keys.insert({"harness", "environment", "mixed_percent", "mixed_hunks"});
  FS_RETURN_IF_ERROR(CheckKeys(*it, "style", keys));
  StyleRules& style = data.style;
  LazyRegex* const fields[] = {&style.compat_added, &style.paddle_added, &style.torch_cxx,     &style.paddle_cxx,
                               &style.native_cxx,   &style.torch_import, &style.paddle_package};
  for (size_t i = 0; i < std::size(kRegexes); ++i)
    FS_RETURN_IF_ERROR(OptionalRegex(*it, "style", kRegexes[i], *fields[i]));
  if (auto harness = it->find("harness"); harness != it->end())
    FS_RETURN_IF_ERROR(Globs(*harness, "style.harness", style.harness));
  if (auto environment = it->find("environment"); environment != it->end())
    FS_RETURN_IF_ERROR(Globs(*environment, "style.environment", style.environment));
  return StyleCutoffs(*it, style);
}

Status RulesParser::Parse(const json& doc, RulesData& data) {
  FS_RETURN_IF_ERROR(CheckKeys(doc, "",
                               {"schema", "path_sets", "path_rules", "hunk_rules", "whole_file_rules", "patterns",
                                "violations", "compat_gaps", "style", "mining", "eager_import"}));
  if (doc.contains("schema") && doc["schema"] != 1) return Fail("schema", "unsupported version (want 1)");
  FS_RETURN_IF_ERROR(PathSetsOf(doc));
  FS_RETURN_IF_ERROR(PathRules(doc, data));
  FS_RETURN_IF_ERROR(HunkRules(doc, data));
  FS_RETURN_IF_ERROR(WholeFileRules(doc, data));
  FS_RETURN_IF_ERROR(Patterns(doc, data));
  FS_RETURN_IF_ERROR(Violations(doc, data));
  FS_RETURN_IF_ERROR(CompatGaps(doc, data));
  if (auto it = doc.find("mining"); it != doc.end()) FS_RETURN_IF_ERROR(ParseMiningOptions(*it, origin_, data.mining));
  FS_RETURN_IF_ERROR(EagerImport(doc, data));
  return Style(doc, data);
}

Status RulesParser::EagerImport(const json& doc, RulesData& data) const {
  auto it = doc.find("eager_import");
  if (it == doc.end()) return Status::Ok();
  const std::string key = "eager_import";
  if (!it->is_object()) return Fail(key, "expected an object");
  FS_RETURN_IF_ERROR(CheckKeys(
      *it, key, {"_comment", "proxy_sensitive", "skip_dirs", "documented", "circular", "max_files", "max_bytes"}));
  for (const char* list : {"proxy_sensitive", "skip_dirs"}) {
    auto l = it->find(list);
    if (l == it->end()) continue;
    if (!l->is_array()) return Fail(key + "." + list, "expected an array of strings");
    auto& out =
        std::string(list) == "proxy_sensitive" ? data.eager_import.proxy_sensitive : data.eager_import.skip_dirs;
    for (const auto& v : *l) {
      if (!v.is_string() || v.get<std::string>().empty()) return Fail(key + "." + list, "expected non-empty strings");
      out.push_back(v.get<std::string>());
    }
  }
  FS_RETURN_IF_ERROR(OptionalRegex(*it, key, "documented", data.eager_import.documented));
  FS_RETURN_IF_ERROR(OptionalRegex(*it, key, "circular", data.eager_import.circular));
  for (const char* n : {"max_files", "max_bytes"}) {
    auto v = it->find(n);
    if (v == it->end()) continue;
    if (!v->is_number_unsigned() || v->get<uint64_t>() == 0) return Fail(key + "." + n, "expected a positive integer");
    (std::string(n) == "max_files" ? data.eager_import.max_files : data.eager_import.max_bytes) = v->get<size_t>();
  }
  return Status::Ok();
}

}  // namespace

struct Rules::State {
  std::string origin;
  std::string version;
  std::once_flag parsed;
  std::shared_ptr<const RulesData> data;  // set by FromJson, or (the shipped default) by the first data()
};

namespace {

// Parses text into rules; check_now compiles every regex here (see RulesParser).
Result<std::shared_ptr<const RulesData>> ParseRules(std::string_view text, const std::string& origin,
                                                    const std::string& version, bool check_now) {
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded()) return InvalidArgument(origin + ": not valid JSON");
  auto data = std::make_shared<RulesData>();
  data->origin = origin;
  data->version = version;
  RulesParser parser(origin, check_now);
  try {
    FS_RETURN_IF_ERROR(parser.Parse(doc, *data));
  } catch (const std::exception& e) {  // nlohmann type errors on malformed values: still a bad file
    return InvalidArgument(origin + ": " + e.what());
  }
  return std::shared_ptr<const RulesData>(std::move(data));
}

}  // namespace

Result<Rules> Rules::FromJson(const std::string& text, const std::string& origin) {
  Rules rules;
  rules.state_ = std::make_shared<State>();
  rules.state_->origin = origin;
  rules.state_->version = base::Fnv1a64Hex(text).substr(0, 12);
  // The shipped default (compiled into the binary) was checked by the tests: it is parsed on first use
  // and its regexes on theirs. Any other text is parsed and checked now, so a bad file fails the load.
  if (text == DefaultRulesText()) return rules;
  FS_ASSIGN_OR_RETURN(rules.state_->data, ParseRules(text, origin, rules.state_->version, true));
  return rules;
}

const RulesData& Rules::data() const {
  std::call_once(state_->parsed, [this] {
    if (state_->data) return;
    auto parsed = ParseRules(DefaultRulesText(), state_->origin, state_->version, false);
    // Unreachable: rules_test loads the shipped text, and this binary holds the text it was built with.
    if (!parsed.ok()) {
      base::Log(base::LogArea::kAnalyzer)->critical("the built-in rules do not parse: {}", parsed.status().ToString());
      std::abort();
    }
    state_->data = std::move(*parsed);
  });
  return *state_->data;
}

Result<Rules> Rules::Load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot open rules file " + path);
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Unavailable("cannot read rules file " + path);
  return FromJson(text.str(), path);
}

const std::string& Rules::version() const { return state_->version; }

}  // namespace forkscope::analyzer
